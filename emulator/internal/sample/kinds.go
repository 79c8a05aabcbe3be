package sample

import (
	"fmt"
	"math"
	"time"
)

// generators makes one event of each kind; see the package doc for where
// the field names come from.
var generators = map[string]func(g *Generator) Event{
	Bicycles:          bicycle,
	YellowTaxi:        taxi,
	StockMarket:       stock,
	Buses:             bus,
	SP500Stocks:       sp500,
	SemanticModelLogs: semanticModelLog,
}

func (g *Generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// between is a value in [lo, hi) rounded to places decimals.
func (g *Generator) between(lo, hi float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round((lo+g.rng.Float64()*(hi-lo))*p) / p
}

func (g *Generator) uuid() string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(g.rng.UintN(256))
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.0000000Z") }

var bikePoints = []struct {
	street, neighbourhood string
	lat, lon              float64
}{
	{"Howie Street", "Battersea", 51.4812, -0.16735},
	{"Scala Street", "Fitzrovia", 51.5197, -0.13628},
	{"Leonard Circus", "Shoreditch", 51.5246, -0.08442},
	{"Tower Wharf", "Bermondsey", 51.5041, -0.07826},
	{"Cheapside", "Bank", 51.5138, -0.09228},
	{"Sancroft Street", "Vauxhall", 51.4892, -0.11564},
	{"Harford Street", "Mile End", 51.5211, -0.03933},
	{"Westbourne Grove", "Bayswater", 51.5137, -0.19424},
	{"Kensington Olympia Station", "Olympia", 51.4979, -0.20989},
	{"Belgrove Street", "King's Cross", 51.5298, -0.12360},
}

func bicycle(g *Generator) Event {
	i := g.rng.IntN(len(bikePoints))
	p := bikePoints[i]
	docks := 20 + int64(i%3)*6
	bikes := g.rng.Int64N(docks + 1)
	return Event{
		"BikepointID":    fmt.Sprintf("BikePoints_%d", 100+i*37),
		"Street":         p.street,
		"Neighbourhood":  p.neighbourhood,
		"Latitude":       p.lat,
		"Longitude":      p.lon,
		"No_Bikes":       bikes,
		"No_Empty_Docks": docks - bikes,
		"Timestamp":      stamp(g.now()),
	}
}

func taxi(g *Generator) Event {
	drop := g.now().UTC()
	minutes := 3 + g.rng.IntN(45)
	pick := drop.Add(-time.Duration(minutes)*time.Minute - time.Duration(g.rng.IntN(60))*time.Second)
	dist := g.between(0.3, 18, 2)
	fare := math.Round((3+dist*2.5+float64(minutes)*0.5)*100) / 100
	tip := g.between(0, fare*0.25, 2)
	tolls := 0.0
	if g.rng.IntN(10) == 0 {
		tolls = 6.94
	}
	extra, mta, improvement, congestion := 1.0, 0.5, 1.0, 2.5
	return Event{
		"VendorID":              int64(1 + g.rng.IntN(2)),
		"tpep_pickup_datetime":  pick.Format("2006-01-02T15:04:05Z"),
		"tpep_dropoff_datetime": drop.Format("2006-01-02T15:04:05Z"),
		"passenger_count":       int64(1 + g.rng.IntN(4)),
		"trip_distance":         dist,
		"RatecodeID":            int64(1),
		"store_and_fwd_flag":    g.pick([]string{"N", "N", "N", "Y"}),
		"PULocationID":          int64(1 + g.rng.IntN(263)),
		"DOLocationID":          int64(1 + g.rng.IntN(263)),
		"payment_type":          int64(1 + g.rng.IntN(2)),
		"fare_amount":           fare,
		"extra":                 extra,
		"mta_tax":               mta,
		"tip_amount":            tip,
		"tolls_amount":          tolls,
		"improvement_surcharge": improvement,
		"total_amount":          math.Round((fare+extra+mta+tip+tolls+improvement+congestion)*100) / 100,
		"congestion_surcharge":  congestion,
	}
}

var symbols = []struct{ symbol, sector string }{
	{"MSFT", "Technology"}, {"AAPL", "Technology"}, {"AMZN", "Consumer Cyclical"}, {"JPM", "Financial Services"},
	{"XOM", "Energy"}, {"JNJ", "Healthcare"}, {"KO", "Consumer Defensive"}, {"CAT", "Industrials"},
}

func stock(g *Generator) Event {
	s := symbols[g.rng.IntN(len(symbols))]
	now := g.now().UTC()
	bid := g.between(20, 600, 2)
	ask := math.Round((bid+g.between(0.01, 0.5, 2))*100) / 100
	last := g.between(bid, ask, 2)
	return Event{
		"symbol":        s.symbol,
		"sector":        s.sector,
		"securityType":  "commonstock",
		"bidPrice":      bid,
		"bidSize":       int64(100 * (1 + g.rng.IntN(20))),
		"askPrice":      ask,
		"askSize":       int64(100 * (1 + g.rng.IntN(20))),
		"lastSalePrice": last,
		"lastSaleSize":  int64(1 + g.rng.IntN(500)),
		"lastSaleTime":  now.UnixMilli(),
		"lastUpdated":   now.UnixMilli(),
		"volume":        int64(10_000 + g.rng.IntN(5_000_000)),
		"marketPercent": g.between(0, 0.05, 5),
		"time":          stamp(now),
	}
}

func bus(g *Generator) Event {
	now := g.now().UTC()
	line := 1 + g.rng.IntN(80)
	delay := g.rng.IntN(12) - 3
	state := "Arrived"
	switch {
	case delay > 4:
		state = "Delayed"
	case delay < 0:
		state = "Early"
	}
	return Event{
		"Timestamp":     stamp(now),
		"TripId":        fmt.Sprintf("%d-%04d", line, 1+g.rng.IntN(400)),
		"BusLine":       fmt.Sprint(line),
		"StationNumber": fmt.Sprint(1 + g.rng.IntN(40)),
		"ScheduleTime":  stamp(now.Add(-time.Duration(delay) * time.Minute)),
		"Properties": map[string]any{
			"BusState":          state,
			"TimeToNextStation": fmt.Sprintf("00:%02d:%02d", 1+g.rng.IntN(9), g.rng.IntN(60)),
		},
	}
}

func sp500(g *Generator) Event {
	s := symbols[g.rng.IntN(len(symbols))]
	open := g.between(20, 600, 2)
	closing := math.Round(open*(1+g.between(-0.04, 0.04, 4))*100) / 100
	high := math.Max(open, closing) + g.between(0, open*0.02, 2)
	low := math.Min(open, closing) - g.between(0, open*0.02, 2)
	return Event{
		"Date":      g.now().UTC().Format("2006-01-02"),
		"Symbol":    s.symbol,
		"Open":      open,
		"High":      math.Round(high*100) / 100,
		"Low":       math.Round(low*100) / 100,
		"Close":     closing,
		"Adj Close": closing,
		"Volume":    int64(100_000 + g.rng.IntN(40_000_000)),
	}
}

var (
	smOperations = []struct{ op, detail string }{
		{"QueryEnd", "DAXQuery"}, {"QueryEnd", "DAXQuery"}, {"QueryEnd", "DAXQuery"},
		{"CommandEnd", "Refresh"}, {"ProgressReportEnd", "ReadData"}, {"Error", "DAXQuery"},
	}
	smModels = []string{"Sales", "Inventory", "Finance KPIs", "Web Analytics"}
	smUsers  = []string{"adele@contoso.com", "alex@contoso.com", "megan@contoso.com", "Power BI Service"}
)

func semanticModelLog(g *Generator) Event {
	o := smOperations[g.rng.IntN(len(smOperations))]
	model := g.rng.IntN(len(smModels))
	user := g.pick(smUsers)
	status, level, text := "Succeeded", int64(4), "EVALUATE TOPN(100, 'Sales')"
	if o.op == "Error" {
		status, level, text = "Failed", int64(2), "The query referenced a column that does not exist."
	}
	if o.op == "CommandEnd" {
		text = `{"refresh":{"type":"full","objects":[{"database":"` + smModels[model] + `"}]}}`
	}
	duration := int64(5 + g.rng.IntN(5000))
	return Event{
		"Timestamp":           stamp(g.now()),
		"OperationName":       o.op,
		"OperationDetailName": o.detail,
		"ItemId":              fmt.Sprintf("00000000-0000-4000-8000-%012d", model+1),
		"ItemKind":            "SemanticModel",
		"ItemName":            smModels[model],
		"WorkspaceId":         "00000000-0000-4000-8000-000000000100",
		"WorkspaceName":       "Sample workspace",
		"CapacityId":          "00000000-0000-4000-8000-000000000200",
		"CorrelationId":       g.uuid(),
		"DurationMs":          duration,
		"CpuTimeMs":           duration * int64(1+g.rng.IntN(4)) / 2,
		"Status":              status,
		"Level":               level,
		"ExecutingUser":       user,
		"User":                user,
		"EventText":           text,
		"ApplicationContext":  map[string]any{"DatasetId": fmt.Sprintf("00000000-0000-4000-8000-%012d", model+1), "Sources": []any{map[string]any{"ReportId": g.uuid(), "VisualId": fmt.Sprintf("%x", g.rng.Uint32())}}},
	}
}

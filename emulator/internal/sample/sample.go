// Package sample generates, locally, the events of Fabric Eventstream's
// SampleData sources: YellowTaxi, StockMarket, Bicycles, Buses, SP500Stocks
// and SemanticModelLogs (the enum of SampleDataSourceProperties.type in
// Fabric's eventstream/definitions/source.json).
//
// The events carry the field names and JSON types of Microsoft's data sets
// as the Fabric documentation and Microsoft Learn labs show them; the values
// are synthetic. Sources, per kind:
//
//   - Bicycles: BikepointID, Street, Neighbourhood, Latitude, Longitude,
//     No_Bikes, No_Empty_Docks (the London bike-share sample of the
//     Real-Time Intelligence tutorial and the DP-700 labs, whose KQL reads
//     these columns), plus Timestamp.
//   - YellowTaxi: the NYC TLC yellow-trip columns the Eventstream taxi
//     tutorial lists (VendorID, tpep_pickup_datetime, tpep_dropoff_datetime,
//     passenger_count, trip_distance, fare_amount, total_amount) and the
//     rest of the TLC record (RatecodeID, store_and_fwd_flag, PULocationID,
//     DOLocationID, payment_type, extra, mta_tax, tip_amount, tolls_amount,
//     improvement_surcharge, congestion_surcharge).
//   - StockMarket: symbol, sector, securityType, bidPrice, bidSize, askPrice,
//     askSize, lastSalePrice, lastSaleSize, lastSaleTime, lastUpdated,
//     volume, marketPercent, time (the labs query symbol, bidPrice and time;
//     the rest follows the IEX TOPS quote the sample resembles).
//   - Buses: Timestamp, TripId, BusLine, StationNumber, ScheduleTime and
//     Properties {BusState, TimeToNextStation} (the digital twin builder
//     tutorial's bus_data_raw; BusLine and StationNumber are strings there).
//   - SP500Stocks: Date, Symbol, Open, High, Low, Close, Adj Close, Volume
//     (the daily S&P 500 price table); the exact column set of Fabric's
//     sample is not documented publicly, so this one is the closest known.
//   - SemanticModelLogs: the workspace-monitoring table of that name
//     (Timestamp, OperationName, OperationDetailName, ItemId, ItemKind,
//     ItemName, WorkspaceId, WorkspaceName, CapacityId, CorrelationId,
//     DurationMs, CpuTimeMs, Status, Level, ExecutingUser, User, EventText,
//     ApplicationContext).
//
// A Generator is deterministic: the same kind, seed and clock give the same
// events.
package sample

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// The sample kinds, as Fabric spells them.
const (
	YellowTaxi        = "YellowTaxi"
	StockMarket       = "StockMarket"
	Bicycles          = "Bicycles"
	Buses             = "Buses"
	SP500Stocks       = "SP500Stocks"
	SemanticModelLogs = "SemanticModelLogs"
)

// Kinds lists every kind New accepts, in Fabric's enum order.
var Kinds = []string{YellowTaxi, StockMarket, Bicycles, Buses, SP500Stocks, SemanticModelLogs}

// ErrUnknownKind is wrapped by New's error for a kind outside Kinds.
var ErrUnknownKind = errors.New("unknown sample data kind")

// Event is one generated event: a JSON object.
type Event = map[string]any

// Generator produces the events of one kind. It is not safe for concurrent use.
type Generator struct {
	kind string
	rng  *rand.Rand
	now  func() time.Time
	seq  int64
	gen  func(g *Generator) Event
}

// Option configures a Generator.
type Option func(*Generator)

// WithClock sets the clock the events' timestamps come from (default
// time.Now); a fixed clock makes the output fully reproducible.
func WithClock(now func() time.Time) Option {
	return func(g *Generator) {
		if now != nil {
			g.now = now
		}
	}
}

// New returns a generator of kind (matched case-insensitively) seeded with
// seed. An unknown kind is an error wrapping ErrUnknownKind that lists Kinds.
func New(kind string, seed uint64, opts ...Option) (*Generator, error) {
	canon, ok := Canonical(kind)
	if !ok {
		return nil, fmt.Errorf("new sample generator: %w %q; want one of %s", ErrUnknownKind, kind, strings.Join(Kinds, ", "))
	}
	g := &Generator{kind: canon, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), now: time.Now, gen: generators[canon]}
	for _, o := range opts {
		o(g)
	}
	return g, nil
}

// Canonical returns Fabric's spelling of kind and whether it is known.
func Canonical(kind string) (string, bool) {
	for _, k := range Kinds {
		if strings.EqualFold(k, strings.TrimSpace(kind)) {
			return k, true
		}
	}
	return "", false
}

// Kind is the generator's kind, as Fabric spells it.
func (g *Generator) Kind() string { return g.kind }

// Next returns the next event.
func (g *Generator) Next() Event {
	g.seq++
	return g.gen(g)
}

// Batch returns the next n events.
func (g *Generator) Batch(n int) []Event {
	out := make([]Event, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

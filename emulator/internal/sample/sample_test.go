package sample_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/sample"
)

var fixed = sample.WithClock(func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })

func TestSampleSchemas(t *testing.T) {
	want := map[string]map[string]string{ // field → JSON type
		sample.Bicycles: {"BikepointID": "string", "Street": "string", "Neighbourhood": "string", "Latitude": "number",
			"Longitude": "number", "No_Bikes": "number", "No_Empty_Docks": "number", "Timestamp": "string"},
		sample.YellowTaxi: {"VendorID": "number", "tpep_pickup_datetime": "string", "tpep_dropoff_datetime": "string", "passenger_count": "number",
			"trip_distance": "number", "RatecodeID": "number", "store_and_fwd_flag": "string", "PULocationID": "number", "DOLocationID": "number",
			"payment_type": "number", "fare_amount": "number", "extra": "number", "mta_tax": "number", "tip_amount": "number",
			"tolls_amount": "number", "improvement_surcharge": "number", "total_amount": "number", "congestion_surcharge": "number"},
		sample.StockMarket: {"symbol": "string", "sector": "string", "securityType": "string", "bidPrice": "number", "bidSize": "number",
			"askPrice": "number", "askSize": "number", "lastSalePrice": "number", "lastSaleSize": "number", "lastSaleTime": "number",
			"lastUpdated": "number", "volume": "number", "marketPercent": "number", "time": "string"},
		sample.Buses: {"Timestamp": "string", "TripId": "string", "BusLine": "string", "StationNumber": "string", "ScheduleTime": "string", "Properties": "object"},
		sample.SP500Stocks: {"Date": "string", "Symbol": "string", "Open": "number", "High": "number", "Low": "number", "Close": "number",
			"Adj Close": "number", "Volume": "number"},
		sample.SemanticModelLogs: {"Timestamp": "string", "OperationName": "string", "OperationDetailName": "string", "ItemId": "string",
			"ItemKind": "string", "ItemName": "string", "WorkspaceId": "string", "WorkspaceName": "string", "CapacityId": "string",
			"CorrelationId": "string", "DurationMs": "number", "CpuTimeMs": "number", "Status": "string", "Level": "number",
			"ExecutingUser": "string", "User": "string", "EventText": "string", "ApplicationContext": "object"},
	}
	if len(want) != len(sample.Kinds) {
		t.Fatalf("kinds %v", sample.Kinds)
	}
	for _, kind := range sample.Kinds {
		g, err := sample.New(kind, 7, fixed)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range g.Batch(50) {
			raw, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			var back map[string]any
			_ = json.Unmarshal(raw, &back)
			if len(back) != len(want[kind]) {
				t.Fatalf("%s: fields %v, want %v", kind, keys(back), want[kind])
			}
			for f, typ := range want[kind] {
				if got := jsonType(back[f]); got != typ {
					t.Fatalf("%s.%s is %s (%v), want %s", kind, f, got, back[f], typ)
				}
			}
		}
	}
}

func TestSampleBicyclesAreConsistent(t *testing.T) {
	g, _ := sample.New("bicycles", 1, fixed)
	if g.Kind() != sample.Bicycles {
		t.Fatalf("kind %q", g.Kind())
	}
	for _, ev := range g.Batch(200) {
		bikes, empty := ev["No_Bikes"].(int64), ev["No_Empty_Docks"].(int64)
		if bikes < 0 || empty < 0 || !strings.HasPrefix(ev["BikepointID"].(string), "BikePoints_") {
			t.Fatalf("event %v", ev)
		}
	}
}

func TestSampleIsDeterministic(t *testing.T) {
	for _, kind := range sample.Kinds {
		a, _ := sample.New(kind, 42, fixed)
		b, _ := sample.New(kind, 42, fixed)
		c, _ := sample.New(kind, 43, fixed)
		ea, eb, ec := a.Batch(20), b.Batch(20), c.Batch(20)
		if !reflect.DeepEqual(ea, eb) {
			t.Fatalf("%s: same seed, different events", kind)
		}
		if reflect.DeepEqual(ea, ec) {
			t.Fatalf("%s: different seeds, same events", kind)
		}
	}
}

func TestSampleUnknownKind(t *testing.T) {
	_, err := sample.New("Weather", 1)
	if !errors.Is(err, sample.ErrUnknownKind) {
		t.Fatalf("err %v", err)
	}
	for _, k := range sample.Kinds {
		if !strings.Contains(err.Error(), k) {
			t.Fatalf("error does not list %s: %v", k, err)
		}
	}
	if k, ok := sample.Canonical("sp500stocks"); !ok || k != sample.SP500Stocks || !slices.Contains(sample.Kinds, k) {
		t.Fatalf("canonical %q %v", k, ok)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "?"
}

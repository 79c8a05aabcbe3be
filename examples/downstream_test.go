package examples_test

// A downstream project's test, as you would write it: the code under test
// (orderPublisher, orderTotals) talks to Fabric through its public REST API
// and the Kafka endpoint an Eventstream resolves to; the test points it at
// the emulator with fabrictest and asserts with gomega and fabrictest's
// matchers. Nothing here uses the emulator's internals.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fabrictest/fabrictest/fabrictest"
)

// ---------------------------------------------------------------- code under test

// order is what the service publishes.
type order struct {
	ID       string  `json:"id"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// orderPublisher sends orders to an Eventstream's Custom HTTP source, keyed
// by order id. In production BaseURL is https://api.fabric.microsoft.com and
// Client carries an Entra ID token.
type orderPublisher struct {
	Client                                            *http.Client
	BaseURL, WorkspaceID, EventstreamID, DatasourceID string
}

func (p orderPublisher) Publish(ctx context.Context, orders ...order) error {
	type event struct {
		Key     string            `json:"key"`
		Value   order             `json:"value"`
		Headers map[string]string `json:"headers"`
	}
	body := struct {
		Events []event `json:"events"`
	}{}
	for _, o := range orders {
		body.Events = append(body.Events, event{Key: o.ID, Value: o, Headers: map[string]string{"source": "order-service"}})
	}
	b, _ := json.Marshal(body)
	url := fmt.Sprintf("%s/v1/workspaces/%s/eventstreams/%s/sources/%s/events", p.BaseURL, p.WorkspaceID, p.EventstreamID, p.DatasourceID)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("publish orders: %s (%s): %s", resp.Status, resp.Header.Get("x-ms-public-api-error-code"), raw)
	}
	return nil
}

// orderTotals consumes orders from Kafka (bootstrap servers and topic as
// the Eventstream resolves them) until it has seen n, and sums the amounts
// per currency.
func orderTotals(ctx context.Context, brokers []string, topic string, n int) (map[string]float64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	totals := map[string]float64{}
	for seen := 0; seen < n; {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return totals, fmt.Errorf("saw %d of %d orders: %w", seen, n, err)
		}
		if err := fetches.Err(); err != nil {
			return totals, err
		}
		for _, r := range fetches.Records() {
			var o order
			if err := json.Unmarshal(r.Value, &o); err != nil {
				return totals, err
			}
			totals[o.Currency] += o.Amount
			seen++
		}
	}
	return totals, nil
}

// ---------------------------------------------------------------- tests

func TestPublishOrders(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	ws := env.Workspace("sales")
	es := ws.Eventstream("orders")
	// In Fabric the Eventstream also feeds a Lakehouse table; here too.
	lake := ws.Lakehouse("sales")
	es.BindLakehouse(lake, "orders")

	pub := orderPublisher{
		Client:  env.Client(), // adds the environment's bearer token
		BaseURL: env.URL, WorkspaceID: es.WorkspaceID, EventstreamID: es.ID, DatasourceID: es.DatasourceID,
	}
	err := pub.Publish(context.Background(),
		order{ID: "o-1", Amount: 12.5, Currency: "EUR"},
		order{ID: "o-2", Amount: 7.25, Currency: "USD"},
	)
	g.Expect(err).NotTo(HaveOccurred())

	// What a report on the Lakehouse would read: a Delta table with one row
	// per order (the publish answers once the table has them). Both amounts
	// have a fraction: a column's type comes from the first batch that
	// creates it, and a batch holding only {"amount": 7} would make it a
	// long that 12.5 no longer fits (the row is then parked, not written).
	table := lake.Table("orders")
	g.Expect(table).To(fabrictest.HaveDeltaRows(2))
	g.Expect(table).To(fabrictest.HaveColumns("id", "amount", "currency"))
	g.Expect(table).To(fabrictest.HaveRowsMatching(
		map[string]any{"id": "o-1", "amount": 12.5, "currency": "EUR"},
		map[string]any{"id": "o-2", "amount": 7.25, "currency": "USD"},
	))

	// What a notebook reading the Eventstream would see, through Kafka.
	records := es.Records()
	g.Expect(records).To(fabrictest.HaveRecordsWithValues(
		order{ID: "o-1", Amount: 12.5, Currency: "EUR"},
		order{ID: "o-2", Amount: 7.25, Currency: "USD"},
	))
	g.Expect(records.Keys()).To(ConsistOf("o-1", "o-2"))
	for _, r := range records {
		source, _ := r.Header("source")
		g.Expect(string(source)).To(Equal("order-service"))
	}
}

func TestPublishNeedsContributor(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	ws := env.Workspace("sales")
	es := ws.Eventstream("orders")
	ws.Grant("reporting-app", fabrictest.Viewer)

	pub := orderPublisher{
		Client:  env.As("reporting-app").Client(), // a token for a mere Viewer
		BaseURL: env.URL, WorkspaceID: es.WorkspaceID, EventstreamID: es.ID, DatasourceID: es.DatasourceID,
	}
	err := pub.Publish(context.Background(), order{ID: "o-1", Amount: 1, Currency: "EUR"})
	g.Expect(err).To(MatchError(ContainSubstring("403 Forbidden (InsufficientPrivileges)")))
	g.Expect(es.Consume()).To(fabrictest.HaveRecordCount(0))
}

func TestOrderTotalsFromKafka(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	es := env.Workspace("sales").Eventstream("orders")

	es.ProduceJSON(
		order{ID: "o-1", Amount: 12.5, Currency: "EUR"},
		order{ID: "o-2", Amount: 7.5, Currency: "EUR"},
		order{ID: "o-3", Amount: 3, Currency: "USD"},
	)

	// The consumer under test gets what a notebook gets: resolve, then Kafka.
	src := es.Resolve()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	totals, err := orderTotals(ctx, src.Brokers(), src.Topic, 3)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(totals).To(Equal(map[string]float64{"EUR": 20, "USD": 3}))
}

func TestOrdersArriveEventually(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	env := fabrictest.Start(t)
	es := env.Workspace("sales").Eventstream("orders")

	// The service publishes in the background, one order at a time.
	pub := orderPublisher{Client: env.Client(), BaseURL: env.URL, WorkspaceID: es.WorkspaceID, EventstreamID: es.ID, DatasourceID: es.DatasourceID}
	go func() {
		for i := range 3 {
			time.Sleep(20 * time.Millisecond)
			_ = pub.Publish(context.Background(), order{ID: fmt.Sprint("o-", i), Amount: 1, Currency: "EUR"})
		}
	}()

	g.Eventually(es.TryRecords).WithTimeout(5 * time.Second).WithPolling(20 * time.Millisecond).
		Should(fabrictest.HaveRecordCount(3))
}

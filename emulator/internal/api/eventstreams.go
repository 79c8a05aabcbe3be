package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// eventstreamKind mints the DefaultStream (datasource id and topic
// {itemId}.{datasourceId}) and keeps the topic's life tied to the item's.
var eventstreamKind = kind{
	properties: func(_ *API, it store.Item) any {
		props, _ := eventstream.Decode(it) // rendering an item that does not decode shows no streams
		return map[string]any{"streams": props.Streams}
	},
}

// source finds the Eventstream {id} and its stream {ds}. When workspaced, the
// item must belong to the call's {ws}; otherwise (the notebook routes) the
// caller's role is checked on the item's own workspace.
func (a dataHandlers) source(c *call, workspaced bool, min store.Role) (store.Item, eventstream.Model, eventstream.Stream, error) {
	var it store.Item
	var err error
	if workspaced {
		it, err = a.item(c, TypeEventstream, min)
	} else {
		id := c.r.PathValue("id")
		it, err = a.cfg.Store.GetItem(c.r.Context(), id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && it.Type != TypeEventstream) {
			err = fabricerr.NotFound(fabricerr.ItemNotFound, "Eventstream", id)
		} else if err == nil {
			err = a.require(c, it.WorkspaceID, min)
		}
	}
	if err != nil {
		return it, eventstream.Model{}, eventstream.Stream{}, err
	}
	m, err := eventstream.Decode(it)
	if err != nil {
		return it, m, eventstream.Stream{}, err
	}
	ds := c.r.PathValue("ds")
	if s, ok := m.Stream(ds); ok {
		return it, m, s, nil
	}
	// A definition's CustomEndpoint source feeds the DefaultStream.
	if len(m.Streams) > 0 && slices.Contains(m.CustomSources(), strings.ToLower(ds)) {
		return it, m, m.Streams[0], nil
	}
	return it, m, eventstream.Stream{}, fabricerr.NotFound(fabricerr.DatasourceNotFound, "Datasource", ds).
		WithDetails(fabricerr.Detail{ErrorCode: fabricerr.DatasourceNotFound,
			Message: "GET the Eventstream item and read properties.streams[0].id for its datasource id"})
}

// resolve answers the Spark adapter's lookup of a notebook's eventstream.* options.
func (a dataHandlers) resolve(c *call) error {
	it, _, s, err := a.source(c, false, store.RoleViewer)
	if err != nil {
		return err
	}
	if !a.cfg.Broker.Enabled() {
		return kafkaError(broker.ErrNoBroker)
	}
	out := map[string]any{
		"itemId":           it.ID,
		"workspaceId":      it.WorkspaceID,
		"datasourceId":     s.ID,
		"bootstrapServers": strings.Join(a.bootstrap(), ","),
		"topic":            s.Topic,
		"securityProtocol": "PLAINTEXT",
	}
	// A secured cluster (--kafka-config): what a notebook sets to reach it,
	// as Kafka client properties. The credentials and the client
	// certificate are there only with fabrictest.share.credentials=true.
	if sec := a.cfg.Broker.Security(); sec.Secured() {
		out["securityProtocol"] = sec.SecurityProtocol
		if sec.SASLMechanism != "" {
			out["saslMechanism"] = sec.SASLMechanism
		}
		out["kafkaProperties"] = sec.NotebookProperties()
		out["credentialsShared"] = sec.Share
	}
	return c.JSON(http.StatusOK, out)
}

// bootstrap is the broker list clients are told to use.
func (a dataHandlers) bootstrap() []string {
	if len(a.cfg.Advertised) > 0 {
		return a.cfg.Advertised
	}
	return a.cfg.Broker.Bootstrap()
}

// kafkaError maps broker failures: no broker is 501, anything else 502.
func kafkaError(err error) error { return runtime.KafkaError(err) }

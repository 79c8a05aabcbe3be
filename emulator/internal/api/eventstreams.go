package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// stream is one stream of an Eventstream and the Kafka topic behind it.
type stream struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Type  string `json:"type"`
	Topic string `json:"topic"`
}

// eventstreamProps is the stored (and rendered) properties of an Eventstream.
type eventstreamProps struct {
	Streams   []stream        `json:"streams"`
	Operators json.RawMessage `json:"operators,omitempty"`
	// Definition is what the last create or updateDefinition stored.
	Definition *storedDefinition `json:"definition,omitempty"`
	// Paused holds the ids of paused sources and destinations (and the
	// DefaultStream's id while the whole Eventstream is paused).
	Paused []string `json:"paused,omitempty"`
}

func streamsOf(it store.Item) eventstreamProps {
	var p eventstreamProps
	_ = json.Unmarshal(it.Properties, &p)
	return p
}

// eventstreamKind mints the DefaultStream (datasource id and topic
// {itemId}.{datasourceId}) and keeps the topic's life tied to the item's.
var eventstreamKind = kind{
	provision: func(a *API, c *call, it *store.Item) error {
		props := streamsOf(*it)
		if len(props.Streams) == 0 { // a definition may have named it already
			ds := uuid.NewString()
			props.Streams = []stream{{ID: ds, Name: it.DisplayName + "-stream", Type: "DefaultStream", Topic: it.ID + "." + ds}}
		}
		it.Properties, _ = json.Marshal(props)
		if err := a.cfg.Store.UpdateItem(c.r.Context(), *it); err != nil {
			return err
		}
		if !a.cfg.Broker.Enabled() {
			return nil // provisioned on first produce once a broker is attached
		}
		if err := a.cfg.Broker.CreateTopic(c.r.Context(), props.Streams[0].Topic); err != nil {
			return kafkaError(err)
		}
		return nil
	},
	release: func(a *API, c *call, it store.Item) error {
		if !a.cfg.Broker.Enabled() {
			return nil
		}
		for _, s := range streamsOf(it).Streams {
			if err := a.cfg.Broker.DeleteTopic(c.r.Context(), s.Topic); err != nil {
				return kafkaError(err)
			}
		}
		return nil
	},
	properties: func(_ *API, it store.Item) any { return map[string]any{"streams": streamsOf(it).Streams} },
}

// source finds the Eventstream {id} and its stream {ds}. When workspaced, the
// item must belong to the call's {ws}; otherwise (the notebook routes) the
// caller's role is checked on the item's own workspace.
func (a *API) source(c *call, workspaced bool, min store.Role) (store.Item, stream, error) {
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
		return it, stream{}, err
	}
	ds := c.r.PathValue("ds")
	streams := streamsOf(it).Streams
	for _, s := range streams {
		if strings.EqualFold(s.ID, ds) {
			return it, s, nil
		}
	}
	// A definition's CustomEndpoint source feeds the DefaultStream.
	if len(streams) > 0 && slices.Contains(customEndpointIDs(it, "sources"), strings.ToLower(ds)) {
		return it, streams[0], nil
	}
	return it, stream{}, fabricerr.NotFound(fabricerr.DatasourceNotFound, "Datasource", ds).
		WithDetails(fabricerr.Detail{ErrorCode: fabricerr.DatasourceNotFound,
			Message: "GET the Eventstream item and read properties.streams[0].id for its datasource id"})
}

// kafkaError maps broker failures: no broker is 501, anything else 502.
func kafkaError(err error) error {
	if errors.Is(err, broker.ErrNoBroker) {
		return fabricerr.New(http.StatusNotImplemented, fabricerr.KafkaNotConfigured,
			"this emulator runs without a Kafka broker (--kafka none); restart it with --kafka embedded, "+
				"or attach a cluster with --kafka host:port[,host:port] or FABRIC_KAFKA_BOOTSTRAP")
	}
	var fe *fabricerr.Error
	if errors.As(err, &fe) {
		return fe
	}
	return fabricerr.New(http.StatusBadGateway, fabricerr.KafkaUnavailable, "the Kafka broker failed: %v", err)
}

// resolve answers the Spark adapter's lookup of a notebook's eventstream.* options.
func (a *API) resolve(c *call) error {
	it, s, err := a.source(c, false, store.RoleViewer)
	if err != nil {
		return err
	}
	if !a.cfg.Broker.Enabled() {
		return kafkaError(broker.ErrNoBroker)
	}
	return c.JSON(http.StatusOK, map[string]any{
		"itemId":           it.ID,
		"workspaceId":      it.WorkspaceID,
		"datasourceId":     s.ID,
		"bootstrapServers": strings.Join(a.bootstrap(), ","),
		"topic":            s.Topic,
		"securityProtocol": "PLAINTEXT",
	})
}

// bootstrap is the broker list clients are told to use.
func (a *API) bootstrap() []string {
	if len(a.cfg.Advertised) > 0 {
		return a.cfg.Advertised
	}
	return a.cfg.Broker.Bootstrap()
}

package api

import (
	"net/http"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/broker"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
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

// resolve answers the Spark adapter's lookup of a notebook's eventstream.* options.
func (a dataHandlers) resolve(c *call) error {
	it, s, err := a.plane.Stream(c.r.Context(), c.caller(), c.r.PathValue("id"), c.r.PathValue("ds"), store.RoleViewer)
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

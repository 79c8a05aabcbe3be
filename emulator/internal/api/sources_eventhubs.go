package api

import (
	"context"
	"errors"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// checkEventHubSource checks an AzureEventHub or AzureIoTHub node of
// workspace ws (fabric-rest-api-specs eventstream source.json:
// dataConnectionId, consumerGroupName, startPosition Earliest|Latest): its
// connection must be registered in ws with an Event Hubs connection string.
func (a *API) checkEventHubSource(ctx context.Context, ws string, n *node) error {
	id := strings.ToLower(n.Str("dataConnectionId"))
	for _, field := range []string{"dataConnectionId", "consumerGroupName"} {
		if strings.TrimSpace(n.Str(field)) == "" {
			return badNode(n, "properties."+field, "required")
		}
	}
	if sp := n.Str("startPosition"); sp != "" {
		canon, ok := oneOf(sp, []string{"Earliest", "Latest"})
		if !ok {
			return badNode(n, "properties.startPosition", "%q is not Earliest or Latest", sp)
		}
		n.Props["startPosition"] = canon
		n.Raw["properties"] = n.Props
	}
	conn, err := a.rt.DataConnection(ctx, ws, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return badNode(n, "properties.dataConnectionId",
			"connection %q is not registered in this workspace (Fabric connections do not exist locally); register the event hub first with "+
				`PUT /v1/_emulator/connections/%s {"workspaceId":"%s","connectionString":"Endpoint=sb://NAMESPACE/;SharedAccessKeyName=…;SharedAccessKey=…;EntityPath=HUB"}`,
			id, id, ws)
	case err != nil:
		return err
	case conn.EventHub == "":
		return badNode(n, "properties.dataConnectionId", "connection %q is a Kafka cluster; an %s source needs a connection registered with an Event Hubs connectionString", id, n.Type)
	}
	return nil
}

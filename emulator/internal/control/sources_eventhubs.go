package control

import (
	"context"
	"errors"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// checkEventHubSource checks an AzureEventHub or AzureIoTHub node of
// workspace ws (fabric-rest-api-specs eventstream source.json:
// dataConnectionId, consumerGroupName, startPosition Earliest|Latest): its
// connection must be registered in ws with an Event Hubs connection string.
func (p *Plane) checkEventHubSource(ctx context.Context, ws string, n *definition.Node) error {
	id := strings.ToLower(n.Str("dataConnectionId"))
	for _, field := range []string{"dataConnectionId", "consumerGroupName"} {
		if strings.TrimSpace(n.Str(field)) == "" {
			return definition.BadNode(n, "properties."+field, "required")
		}
	}
	if sp := n.Str("startPosition"); sp != "" {
		canon, ok := OneOf(sp, []string{"Earliest", "Latest"})
		if !ok {
			return definition.BadNode(n, "properties.startPosition", "%q is not Earliest or Latest", sp)
		}
		n.Props["startPosition"] = canon
		n.Raw["properties"] = n.Props
	}
	conn, err := p.rt.DataConnection(ctx, ws, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return definition.BadNode(n, "properties.dataConnectionId",
			"connection %q is not registered in this workspace (Fabric connections do not exist locally); register the event hub first with "+
				`PUT /v1/_emulator/connections/%s {"workspaceId":"%s","connectionString":"Endpoint=sb://NAMESPACE/;SharedAccessKeyName=…;SharedAccessKey=…;EntityPath=HUB"}`,
			id, id, ws)
	case err != nil:
		return err
	case conn.EventHub == "":
		return definition.BadNode(n, "properties.dataConnectionId", "connection %q is a Kafka cluster; an %s source needs a connection registered with an Event Hubs connectionString", id, n.Type)
	}
	return nil
}

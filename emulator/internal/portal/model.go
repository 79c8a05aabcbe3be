package portal

// The API's answers, as far as the portal reads them.

// workspace is a workspace as the API lists it.
type workspace struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
}

// item is an item as the API lists it.
type item struct {
	ID          string         `json:"id"`
	Type        string         `json:"type"`
	DisplayName string         `json:"displayName"`
	Description string         `json:"description"`
	WorkspaceID string         `json:"workspaceId"`
	Properties  map[string]any `json:"properties"`
}

// roleAssignment is one principal's role in a workspace.
type roleAssignment struct {
	ID        string `json:"id"`
	Principal struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"principal"`
	Role string `json:"role"`
}

// list is the API's {"value": [...]} answer.
type list[T any] struct {
	Value []T `json:"value"`
}

// node is an Eventstream topology node.
type node struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Status     string         `json:"status"`
	Error      string         `json:"error"`
	Properties map[string]any `json:"properties"`
	InputNodes []struct {
		Name string `json:"name"`
	} `json:"inputNodes"`
}

// topology is the topology route's answer.
type topology struct {
	Sources      []node `json:"sources"`
	Streams      []node `json:"streams"`
	Operators    []node `json:"operators"`
	Destinations []node `json:"destinations"`
}

// nodeMetrics is one node of the metrics route's answer.
type nodeMetrics struct {
	ID       string           `json:"id"`
	Name     string           `json:"name"`
	NodeType string           `json:"nodeType"`
	Metrics  map[string]int64 `json:"metrics"`
}

// metricsAnswer is the metrics route's answer.
type metricsAnswer struct {
	Nodes []nodeMetrics `json:"nodes"`
}

// logEntry is one runtime log line.
type logEntry struct {
	Time       string         `json:"time"`
	Level      string         `json:"level"`
	Message    string         `json:"message"`
	Attributes map[string]any `json:"attributes"`
	NodeID     string         `json:"nodeId"`
	NodeName   string         `json:"nodeName"`
	NodeType   string         `json:"nodeType"`
}

// trigger is a Reflex trigger.
type trigger struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Enabled     bool   `json:"enabled"`
	EventType   string `json:"eventType"`
	Source      struct {
		ItemID string `json:"itemId"`
	} `json:"source"`
	Condition any `json:"condition"`
	Action    struct {
		WorkspaceID string `json:"workspaceId"`
		ItemID      string `json:"itemId"`
		JobType     string `json:"jobType"`
	} `json:"action"`
}

// jobInstance is a Job Scheduler instance.
type jobInstance struct {
	ID             string `json:"id"`
	ItemID         string `json:"itemId"`
	JobType        string `json:"jobType"`
	InvokeType     string `json:"invokeType"`
	Status         string `json:"status"`
	StartTimeUtc   string `json:"startTimeUtc"`
	EndTimeUtc     string `json:"endTimeUtc"`
	FailureReason  any    `json:"failureReason"`
	RootActivityID string `json:"rootActivityId"`
}

// table is one entry of the Lakehouse tables route.
type table struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Format   string `json:"format"`
	Location string `json:"location"`
}

// connection is a CustomEndpoint node's connection.
type connection struct {
	FullyQualifiedNamespace string `json:"fullyQualifiedNamespace"`
	EventHubName            string `json:"eventHubName"`
	ConsumerGroupName       string `json:"consumerGroupName"`
	AccessKeys              struct {
		PrimaryKey                string `json:"primaryKey"`
		SecondaryKey              string `json:"secondaryKey"`
		PrimaryConnectionString   string `json:"primaryConnectionString"`
		SecondaryConnectionString string `json:"secondaryConnectionString"`
	} `json:"accessKeys"`
}

package wire

// List is a page of a Fabric list route: value, plus continuationToken and
// continuationUri unless this is the last page.
type List[T any] struct {
	Value             []T    `json:"value"`
	ContinuationToken string `json:"continuationToken,omitempty"`
	ContinuationURI   string `json:"continuationUri,omitempty"`
}

// Workspace is a workspace (GET /v1/workspaces/{id}, and the entries of
// the list).
type Workspace struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	// Type is always Workspace.
	Type       string `json:"type"`
	CapacityID string `json:"capacityId,omitempty"`
	// CapacityAssignmentProgress is Completed on GET of one workspace.
	CapacityAssignmentProgress string `json:"capacityAssignmentProgress,omitempty"`
}

// Item is a Fabric item. The typed routes (…/eventstreams, …/lakehouses)
// add the type's properties; the generic …/items routes have none.
type Item struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	WorkspaceID string `json:"workspaceId"`
	// Properties are the type's properties; decoded, an object is a
	// map[string]any.
	Properties any `json:"properties,omitempty"`
}

// Property returns the item property key (nil when absent).
func (it Item) Property(key string) any {
	m, _ := it.Properties.(map[string]any)
	return m[key]
}

// RoleAssignment is one principal's role in a workspace.
type RoleAssignment struct {
	ID        string    `json:"id"`
	Principal Principal `json:"principal"`
	// Role is Admin, Member, Contributor or Viewer.
	Role string `json:"role"`
}

// Principal is who a role is assigned to.
type Principal struct {
	ID string `json:"id"`
	// Type is User, Group, ServicePrincipal or ServicePrincipalProfile.
	Type string `json:"type"`
}

// Table is one entry of a Lakehouse's tables list (GET
// …/lakehouses/{id}/tables answers a List of them under "data").
type Table struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Format   string `json:"format"`
	Location string `json:"location"`
}

// TableList is GET …/lakehouses/{id}/tables: the tables under "data".
type TableList struct {
	Data []Table `json:"data"`
}

// Operation statuses.
const (
	OperationNotStarted = "NotStarted"
	OperationRunning    = "Running"
	OperationSucceeded  = "Succeeded"
	OperationFailed     = "Failed"
)

// OperationState is GET /v1/operations/{operationId}: a long-running
// operation's progress, and its error once it Failed.
type OperationState struct {
	Status string `json:"status"`
	// CreatedTimeUtc and LastUpdatedTimeUtc are UTC with milliseconds
	// (2006-01-02T15:04:05.000Z).
	CreatedTimeUtc     string `json:"createdTimeUtc"`
	LastUpdatedTimeUtc string `json:"lastUpdatedTimeUtc"`
	// PercentComplete is 0, 50 while it runs, then 100.
	PercentComplete int    `json:"percentComplete"`
	Error           *Error `json:"error,omitempty"`
}

// Folder is a workspace folder. The emulator keeps none: every item is at
// the workspace's root, and GET …/folders answers an empty List.
type Folder struct {
	ID             string `json:"id"`
	DisplayName    string `json:"displayName"`
	WorkspaceID    string `json:"workspaceId"`
	ParentFolderID string `json:"parentFolderId,omitempty"`
}

// DefinitionAnswer is POST …/getDefinition: the item's definition.
type DefinitionAnswer struct {
	Definition Definition `json:"definition"`
}

// Definition is an item definition: its parts, and the format they are in
// when the item type has several.
type Definition struct {
	Format string           `json:"format,omitempty"`
	Parts  []DefinitionPart `json:"parts"`
}

// DefinitionPart is one file of a definition (eventstream.json,
// .platform, …), its payload base64 (PayloadType InlineBase64).
type DefinitionPart struct {
	Path        string `json:"path"`
	Payload     string `json:"payload"`
	PayloadType string `json:"payloadType"`
}

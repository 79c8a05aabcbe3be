package wire

import "slices"

// ErrorCode is a stable error code of the emulator's answers: the
// errorCode of an Error envelope or of one of its details, of a topology
// node's error, or of a job instance's failureReason. Those Fabric
// documents keep Fabric's spelling; the emulator's own are named the same
// way.
type ErrorCode string

// The codes of the error envelope. Their HTTP status is the one the
// emulator answers them with.
const (
	// Authentication and roles.
	InvalidToken           ErrorCode = "InvalidToken"           // 401: the bearer token is missing, malformed or not signed by the emulator's issuer
	TokenExpired           ErrorCode = "TokenExpired"           // 401: the bearer token's exp has passed
	InsufficientPrivileges ErrorCode = "InsufficientPrivileges" // 403: the caller's workspace role is too low
	Forbidden              ErrorCode = "Forbidden"              // 403: the caller may not do this at all
	HTTPSRequired          ErrorCode = "HttpsRequired"          // 400: plain HTTP on the HTTPS port

	// Not found.
	WorkspaceNotFound   ErrorCode = "WorkspaceNotFound"
	ItemNotFound        ErrorCode = "ItemNotFound"
	EntityNotFound      ErrorCode = "EntityNotFound"
	PrincipalNotFound   ErrorCode = "PrincipalNotFound"
	DatasourceNotFound  ErrorCode = "DatasourceNotFound"
	DestinationNotFound ErrorCode = "DestinationNotFound"
	ConnectionNotFound  ErrorCode = "ConnectionNotFound"
	FolderNotFound      ErrorCode = "FolderNotFound"
	TriggerNotFound     ErrorCode = "TriggerNotFound"
	TableNotFound       ErrorCode = "TableNotFound" // the portal: a Lakehouse table page of no table
	JobInstanceNotFound ErrorCode = "JobInstanceNotFound"
	EndpointNotFound    ErrorCode = "EndpointNotFound" // 404: no route at this path

	// Bad requests.
	InvalidInput                      ErrorCode = "InvalidInput"
	InvalidParameter                  ErrorCode = "InvalidParameter" // the detail naming the field at fault
	InvalidRequest                    ErrorCode = "InvalidRequest"
	InvalidItemType                   ErrorCode = "InvalidItemType"
	InvalidJobType                    ErrorCode = "InvalidJobType"
	InvalidContinuationToken          ErrorCode = "InvalidContinuationToken"
	InvalidPath                       ErrorCode = "InvalidPath"
	CorruptedPayload                  ErrorCode = "CorruptedPayload"
	MissingDefinitionPart             ErrorCode = "MissingDefinitionPart"
	OperationNotSupportedForItem      ErrorCode = "OperationNotSupportedForItem"
	EventstreamNodeNotSupported       ErrorCode = "EventstreamNodeNotSupported"
	EventstreamOperatorNotSupported   ErrorCode = "EventstreamOperatorNotSupported"
	EventstreamNodeNotCustomEndpoint  ErrorCode = "EventstreamNodeNotCustomEndpoint"
	EventValueNotSupported            ErrorCode = "EventValueNotSupported"
	EventstreamDataFormatNotSupported ErrorCode = "EventstreamDataFormatNotSupported" // 400: a destination, operator or DerivedStream cannot take its events' format (detail: the field)
	EventstreamSchemaModeNotSupported ErrorCode = "EventstreamSchemaModeNotSupported" // 400: a node, or a change of schema mode, that an Eventstream in schema mode does not take (detail: the field)
	RequestHeadersTooLarge            ErrorCode = "RequestHeaderFieldsTooLarge"       // 431
	UnsupportedTransferEncoding       ErrorCode = "UnsupportedTransferEncoding"
	RequestBodyTooLarge               ErrorCode = "RequestBodyTooLarge" // 413
	EventTooLarge                     ErrorCode = "EventTooLarge"       // 413: one event over 1 MB
	MethodNotAllowed                  ErrorCode = "MethodNotAllowed"
	RequestTimeout                    ErrorCode = "RequestTimeout"

	// Conflicts with the state of a resource.
	ItemDisplayNameAlreadyInUse ErrorCode = "ItemDisplayNameAlreadyInUse"
	WorkspaceNameAlreadyExists  ErrorCode = "WorkspaceNameAlreadyExists"
	PrincipalAlreadyHasRole     ErrorCode = "PrincipalAlreadyHasWorkspaceRolePermissions"
	LastAdminCannotBeRemoved    ErrorCode = "WorkspaceMustHaveAdmin"
	EventstreamSourcePaused     ErrorCode = "EventstreamSourcePaused" // 409: resume the source first
	EventstreamHasDefinition    ErrorCode = "EventstreamHasDefinition"
	EventstreamNotProvisioned   ErrorCode = "EventstreamNotProvisioned"
	DerivedStreamIsReadOnly     ErrorCode = "DerivedStreamIsReadOnly"
	ConnectionInOtherWorkspace  ErrorCode = "ConnectionInOtherWorkspace"
	DestinationNotRunning       ErrorCode = "DestinationNotRunning"
	JobAlreadyCompleted         ErrorCode = "JobAlreadyCompleted"
	OperationHasNoResult        ErrorCode = "OperationHasNoResult"
	OperationNotCompleted       ErrorCode = "OperationNotCompleted"

	// The emulator's own backends.
	KafkaNotConfigured          ErrorCode = "KafkaNotConfigured" // 503: started without a broker
	KafkaUnavailable            ErrorCode = "KafkaUnavailable"   // 503, and a Warning node's error: the cluster cannot serve the topic for now
	CustomEndpointKafkaDisabled ErrorCode = "CustomEndpointKafkaDisabled"
	CustomEndpointAMQPDisabled  ErrorCode = "CustomEndpointAMQPDisabled" // 501: the Event Hubs (AMQP) endpoint is off
	TLSCANotAvailable           ErrorCode = "TlsCaNotAvailable"
	DestinationFailed           ErrorCode = "DestinationFailed"  // 502, and a Failed destination node's error
	DestinationTimeout          ErrorCode = "DestinationTimeout" // 504: a produce waited too long for delivery
	SourceFailed                ErrorCode = "SourceFailed"       // a Failed source node's error

	// A CDC source's node error: a failure a user can fix on the database side.
	CDCAuthenticationFailed       ErrorCode = "CDCAuthenticationFailed"       // the server refused the user name or password
	CDCDatabaseNotFound           ErrorCode = "CDCDatabaseNotFound"           // the connection's database does not exist
	CDCTableNotFound              ErrorCode = "CDCTableNotFound"              // a table the source names does not exist
	CDCLogicalReplicationDisabled ErrorCode = "CDCLogicalReplicationDisabled" // PostgreSQL's wal_level is not logical
	CDCBinlogDisabled             ErrorCode = "CDCBinlogDisabled"             // MySQL writes no row-based binary log
	CDCReplicationSlotNotFound    ErrorCode = "CDCReplicationSlotNotFound"    // the saved position's slot is gone
	CDCBinlogPositionNotFound     ErrorCode = "CDCBinlogPositionNotFound"     // the saved binlog file or GTID set was purged
	CDCServerUnreachable          ErrorCode = "CDCServerUnreachable"          // nothing answers at the connection's host and port
	CDCPermissionDenied           ErrorCode = "CDCPermissionDenied"           // the user lacks a replication privilege
	CDCPublicationNotFound        ErrorCode = "CDCPublicationNotFound"        // the source's publication does not exist

	// Throttling and injected faults.
	RequestBlocked    ErrorCode = "RequestBlocked"    // 429 + Retry-After: Fabric's throttling answer (a fault rule's throttle)
	FaultInjected     ErrorCode = "FaultInjected"     // a fault rule's error answer, with the status the rule names (default 503)
	FaultRuleNotFound ErrorCode = "FaultRuleNotFound" // 404: DELETE /_emulator/faults/{id} of no active rule

	// AuthenticationFailed is a connection string's key refused on a
	// custom-endpoint door; the door answers it in its own protocol.
	AuthenticationFailed ErrorCode = "AuthenticationFailed"

	// UnknownError is every failure nobody anticipated: a 500 whose
	// message tells nothing of the cause; the emulator's log holds it
	// under the requestId.
	UnknownError ErrorCode = "UnknownError"
)

// The codes of a failed job instance's failureReason.
const (
	JobFailed      ErrorCode = "JobFailed"      // the handler returned an error
	NoJobRunner    ErrorCode = "NoJobRunner"    // nothing runs the job type
	JobInterrupted ErrorCode = "JobInterrupted" // the emulator restarted while it ran
)

// codes is the catalogue, in the order above.
var codes = []ErrorCode{
	InvalidToken, TokenExpired, InsufficientPrivileges, Forbidden, HTTPSRequired,
	WorkspaceNotFound, ItemNotFound, EntityNotFound, PrincipalNotFound, DatasourceNotFound, DestinationNotFound,
	ConnectionNotFound, FolderNotFound, TriggerNotFound, TableNotFound, JobInstanceNotFound, EndpointNotFound,
	InvalidInput, InvalidParameter, InvalidRequest, InvalidItemType, InvalidJobType, InvalidContinuationToken, InvalidPath,
	CorruptedPayload, MissingDefinitionPart, OperationNotSupportedForItem, EventstreamNodeNotSupported,
	EventstreamOperatorNotSupported, EventstreamNodeNotCustomEndpoint, EventValueNotSupported, EventstreamDataFormatNotSupported,
	EventstreamSchemaModeNotSupported,
	RequestHeadersTooLarge, UnsupportedTransferEncoding, RequestBodyTooLarge, EventTooLarge,
	MethodNotAllowed, RequestTimeout,
	ItemDisplayNameAlreadyInUse, WorkspaceNameAlreadyExists, PrincipalAlreadyHasRole, LastAdminCannotBeRemoved,
	EventstreamSourcePaused, EventstreamHasDefinition, EventstreamNotProvisioned, DerivedStreamIsReadOnly,
	ConnectionInOtherWorkspace, DestinationNotRunning, JobAlreadyCompleted, OperationHasNoResult, OperationNotCompleted,
	KafkaNotConfigured, KafkaUnavailable, CustomEndpointKafkaDisabled, CustomEndpointAMQPDisabled, TLSCANotAvailable,
	DestinationFailed, DestinationTimeout, SourceFailed,
	CDCAuthenticationFailed, CDCDatabaseNotFound, CDCTableNotFound, CDCLogicalReplicationDisabled, CDCBinlogDisabled,
	CDCReplicationSlotNotFound, CDCBinlogPositionNotFound, CDCServerUnreachable, CDCPermissionDenied, CDCPublicationNotFound,
	RequestBlocked, FaultInjected, FaultRuleNotFound,
	AuthenticationFailed,
	UnknownError,
	JobFailed, NoJobRunner, JobInterrupted,
}

// Codes returns the catalogue: every code the emulator answers.
func Codes() []ErrorCode { return slices.Clone(codes) }

// Known reports whether c is in the catalogue.
func (c ErrorCode) Known() bool { return slices.Contains(codes, c) }

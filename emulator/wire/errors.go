package wire

// Error is the envelope of every failure the emulator answers, as Fabric
// sends it:
//
//	{"requestId": "…", "errorCode": "ItemNotFound", "message": "…",
//	 "moreDetails": [{"errorCode": "…", "message": "…"}],
//	 "relatedResource": {"resourceId": "…", "resourceType": "Item"}}
//
// The code is also in the x-ms-public-api-error-code header and the
// request id in the requestid and x-ms-request-id headers. ErrorCode is
// the stable contract; messages may change.
type Error struct {
	// ErrorCode is the stable code, one of the catalogue (Codes).
	ErrorCode ErrorCode `json:"errorCode"`
	// Message explains the failure for a person.
	Message string `json:"message"`
	// RequestID identifies the request in the emulator's log.
	RequestID string `json:"requestId"`
	// MoreDetails lists further errors, such as the field at fault.
	MoreDetails []ErrorDetail `json:"moreDetails,omitempty"`
	// RelatedResource names the resource the error is about, if any.
	RelatedResource *RelatedResource `json:"relatedResource,omitempty"`
}

// ErrorDetail is one entry of an Error's moreDetails.
type ErrorDetail struct {
	// ErrorCode is the detail's code, such as InvalidParameter.
	ErrorCode ErrorCode `json:"errorCode"`
	// Message explains the detail.
	Message string `json:"message"`
	// RelatedResource names the resource the detail is about, if any.
	RelatedResource *RelatedResource `json:"relatedResource,omitempty"`
}

// RelatedResource names the resource an error is about.
type RelatedResource struct {
	// ResourceID is the id looked for, such as an item id.
	ResourceID string `json:"resourceId"`
	// ResourceType is the kind of resource, such as Eventstream.
	ResourceType string `json:"resourceType"`
}

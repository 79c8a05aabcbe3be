package wire

// Job instance statuses.
const (
	JobNotStarted   = "NotStarted"
	JobInProgress   = "InProgress"
	JobCompleted    = "Completed"
	JobStatusFailed = "Failed"
	JobCancelled    = "Cancelled"
)

// JobInstance is one run of an item's job, as the Job Scheduler routes
// answer it (GET …/items/{id}/jobs/instances/{instanceId}).
type JobInstance struct {
	ID     string `json:"id"`
	ItemID string `json:"itemId"`
	// JobType is the job type, such as RunNotebook.
	JobType string `json:"jobType"`
	// InvokeType is Manual, Scheduled or EventTriggered (a Reflex trigger).
	InvokeType string `json:"invokeType"`
	// Status is NotStarted, InProgress, Completed, Failed or Cancelled.
	Status string `json:"status"`
	// RootActivityID traces the run.
	RootActivityID string `json:"rootActivityId"`
	// StartTimeUtc and EndTimeUtc are UTC with 7 fractional digits and no
	// zone (2006-01-02T15:04:05.0000000), absent until the instance starts
	// and ends.
	StartTimeUtc string `json:"startTimeUtc,omitempty"`
	EndTimeUtc   string `json:"endTimeUtc,omitempty"`
	// FailureReason says why a Failed instance failed; null otherwise.
	FailureReason *JobFailure `json:"failureReason"`
	// TriggerEvent is the event that fired an EventTriggered instance (see
	// TriggerEvent), absent for other runs.
	TriggerEvent *TriggerEvent `json:"triggerEvent,omitempty"`
}

// JobTimeLayout is the layout of StartTimeUtc and EndTimeUtc.
const JobTimeLayout = "2006-01-02T15:04:05.0000000"

// JobFailure is a job instance's failureReason.
type JobFailure struct {
	// ErrorCode is JobFailed for a handler's error, NoJobRunner when
	// nothing runs the job, JobInterrupted after a restart.
	ErrorCode ErrorCode `json:"errorCode"`
	// Message is the handler's error text, or the emulator's explanation.
	Message string `json:"message"`
}

// TriggerEvent is the Eventstream event that fired a job, as a Reflex
// destination hands it on: the Kafka record's key and value as text.
type TriggerEvent struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
	// EventType is Microsoft.Fabric.Eventstream.EventReceived.
	EventType string `json:"EventType"`
	// Source places the event: its Eventstream, partition and offset (-1
	// for a row a window made).
	Source TriggerSource `json:"Source"`
}

// TriggerSource is where a TriggerEvent's record was read.
type TriggerSource struct {
	ItemID    string `json:"itemId"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

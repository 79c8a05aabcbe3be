package portal

import (
	"net/http"
	"time"
)

// recentPerNode is how many of a node's last runtime errors its card shows.
const recentPerNode = 3

// recentError is one runtime error entry as a node's card shows it.
type recentError struct {
	Time    string `json:"time"`
	Message string `json:"message"`
}

// recentErrors asks the logs route for the Eventstream's Error entries
// (newest first) and keeps each node's last few; nil when the route
// refuses (the page still shows).
func (p *Portal) recentErrors(r *http.Request, principal, api string) map[string][]recentError {
	var logs list[logEntry]
	if p.get(r, principal, api+"/logs?level=Error", &logs) != nil {
		return nil
	}
	out := map[string][]recentError{}
	for _, e := range logs.Value {
		if len(out[e.NodeID]) < recentPerNode {
			out[e.NodeID] = append(out[e.NodeID], recentError{Time: e.Time.UTC().Format(time.RFC3339), Message: e.Message})
		}
	}
	return out
}

// orEmpty is es, or an empty list for JSON's sake.
func orEmpty(es []recentError) []recentError {
	if es == nil {
		return []recentError{}
	}
	return es
}

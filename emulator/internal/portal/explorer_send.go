package portal

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/wire"
)

// maxSendCount is the most copies of an event one send makes.
const maxSendCount = 1000

// sendEvents serves POST …/eventstreams/{id}/send, the explorer's send
// form: count copies of one event (a JSON or text value, an optional key,
// headers as "name: value" lines) to a stream, through the API's produce
// route as the principal, so the same ingest path (roles: Contributor and
// up; pause; limits; delivery wait) takes them. It returns to the explorer
// peeking that stream's newest records, with what was sent or the API's
// answer.
func (p *Portal) sendEvents(w http.ResponseWriter, r *http.Request) {
	stream := r.FormValue("stream")
	back := Prefix + "workspaces/" + url.PathEscape(r.PathValue("ws")) + "/eventstreams/" + url.PathEscape(r.PathValue("id")) + "/explorer"
	if stream != "" {
		back += "?" + url.Values{"stream": {stream}, "from": {"end"}}.Encode()
	}
	n, err := p.send(r, stream)
	if err != nil {
		ae, ok := err.(*apiError)
		if !ok {
			p.cfg.Logger.Error("portal: send failed", "path", r.URL.Path, "err", err)
			ae = newAPIError(http.StatusInternalServerError, wire.UnknownError, "the portal could not send; the emulator's log has the cause")
		}
		setFlash(w, flash{Status: ae.Status, Code: string(ae.Env.ErrorCode), Text: ae.Env.Message})
	} else {
		setFlash(w, flash{Notice: fmt.Sprintf("Sent %d event%s.", n, map[bool]string{true: "", false: "s"}[n == 1])})
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// send builds the produce body from the form and posts it.
func (p *Portal) send(r *http.Request, stream string) (int, error) {
	if stream == "" {
		return 0, newAPIError(http.StatusBadRequest, wire.InvalidInput, "stream: choose a stream")
	}
	ev, err := formEvent(r)
	if err != nil {
		return 0, err
	}
	count := 1
	if s := r.FormValue("count"); s != "" {
		if count, err = strconv.Atoi(s); err != nil || count < 1 || count > maxSendCount {
			return 0, newAPIError(http.StatusBadRequest, wire.InvalidInput, "count: want 1 to %d, got %q", maxSendCount, s)
		}
	}
	events := make([]map[string]any, count)
	for i := range events {
		events[i] = ev
	}
	path := eventstreamAPI(r) + "/sources/" + url.PathEscape(stream) + "/events"
	return count, p.call(r, p.principal(r), http.MethodPost, path, map[string]any{"events": events}, nil)
}

// formEvent is the produce route's event for the form's value (JSON,
// checked here, or text), key and headers.
func formEvent(r *http.Request) (map[string]any, error) {
	ev := map[string]any{}
	raw := r.FormValue("value")
	switch r.FormValue("kind") {
	case "text":
		ev["value"] = raw
	case "json", "":
		if !json.Valid([]byte(raw)) {
			return nil, newAPIError(http.StatusBadRequest, wire.InvalidInput, "value: not JSON (choose Text to send it as text)")
		}
		ev["value"] = json.RawMessage(raw)
	default:
		return nil, newAPIError(http.StatusBadRequest, wire.InvalidInput, "kind: want json or text, got %q", r.FormValue("kind"))
	}
	if k := r.FormValue("key"); k != "" {
		ev["key"] = k
	}
	headers := map[string]string{}
	for i, line := range strings.Split(strings.ReplaceAll(r.FormValue("headers"), "\r\n", "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, newAPIError(http.StatusBadRequest, wire.InvalidInput, "headers: line %d: want name: value, got %q", i+1, line)
		}
		headers[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	if len(headers) > 0 {
		ev["headers"] = headers
	}
	return ev, nil
}

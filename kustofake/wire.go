package kustofake

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"
)

// fragmentRows is how many rows one v2 TableFragment frame carries.
const fragmentRows = 1000

// requestInfo is what a response needs to know about its request.
type requestInfo struct {
	clientRequestID string
	activityID      string
	db              string
	csl             string
}

// encodeJSON marshals v without HTML escaping and without a trailing newline.
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("kustofake: encode response: " + err.Error())
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// v1Column is a column of a v1 table.
type v1Column struct {
	ColumnName string `json:"ColumnName"`
	DataType   string `json:"DataType"`
	ColumnType string `json:"ColumnType"`
}

// v1Table is a table of a v1 response.
type v1Table struct {
	TableName string     `json:"TableName"`
	Columns   []v1Column `json:"Columns"`
	Rows      [][]any    `json:"Rows"`
}

func toV1Table(name string, r *result) v1Table {
	t := v1Table{TableName: name, Columns: make([]v1Column, len(r.columns)), Rows: make([][]any, 0, len(r.rows))}
	for i, c := range r.columns {
		t.Columns[i] = v1Column{ColumnName: c.Name, DataType: dotNetType[c.Type], ColumnType: c.Type}
	}
	for _, row := range r.rows {
		out := make([]any, len(row))
		for i, v := range row {
			out[i] = wireValue(r.columns[i].Type, v)
		}
		t.Rows = append(t.Rows, out)
	}
	return t
}

// mgmtBody is the v1 answer of a management command: {"Tables":[one table]}.
func mgmtBody(r *result) []byte {
	return encodeJSON(struct {
		Tables []v1Table `json:"Tables"`
	}{[]v1Table{toV1Table("Table_0", r)}})
}

// v1QueryBody is the v1 answer of a query: the result, @ExtendedProperties,
// QueryStatus, and last the TableOfContents that indexes them.
func v1QueryBody(r *result, info requestInfo) []byte {
	props := &result{columns: []Column{{"Value", TypeString}}, rows: [][]any{{visualization}}}
	now := time.Now().UTC()
	status := &result{
		columns: []Column{
			{"Timestamp", TypeDateTime}, {"Severity", TypeInt}, {"SeverityName", TypeString},
			{"StatusCode", TypeInt}, {"StatusDescription", TypeString}, {"Count", TypeInt},
			{"RequestId", TypeGUID}, {"ActivityId", TypeGUID}, {"SubActivityId", TypeGUID},
			{"ClientActivityId", TypeString},
		},
		rows: [][]any{{now, int64(4), "Info", int64(0), "Query completed successfully", int64(1),
			info.activityID, info.activityID, info.activityID, info.clientRequestID}},
	}
	toc := &result{
		columns: []Column{{"Ordinal", TypeLong}, {"Kind", TypeString}, {"Name", TypeString}, {"Id", TypeString}, {"PrettyName", TypeString}},
		rows: [][]any{
			{int64(0), "QueryResult", "PrimaryResult", uuid.NewString(), ""},
			{int64(1), "QueryProperties", "@ExtendedProperties", uuid.NewString(), ""},
			{int64(2), "QueryStatus", "QueryStatus", uuid.NewString(), ""},
		},
	}
	return encodeJSON(struct {
		Tables []v1Table `json:"Tables"`
	}{[]v1Table{toV1Table("Table_0", r), toV1Table("Table_1", props), toV1Table("Table_2", status), toV1Table("Table_3", toc)}})
}

const visualization = `{"Visualization":null,"Title":null,"XColumn":null,"Series":null,"YColumns":null,"AnomalyColumns":null,"XTitle":null,"YTitle":null,"XAxis":null,"YAxis":null,"Legend":null,"YSplit":null,"Accumulate":false,"IsQuerySorted":false,"Kind":null,"Ymin":"NaN","Ymax":"NaN","Xmin":null,"Xmax":null}`

// v2 frames. Field order is the wire contract: the SDK peeks FrameType as the
// first property and asserts the DataSetHeader members in this order.
type (
	v2Column struct {
		ColumnName string `json:"ColumnName"`
		ColumnType string `json:"ColumnType"`
	}
	dataSetHeader struct {
		FrameType               string `json:"FrameType"`
		IsProgressive           bool   `json:"IsProgressive"`
		Version                 string `json:"Version"`
		IsFragmented            bool   `json:"IsFragmented"`
		ErrorReportingPlacement string `json:"ErrorReportingPlacement"`
	}
	dataTable struct {
		FrameType string     `json:"FrameType"`
		TableID   int        `json:"TableId"`
		TableKind string     `json:"TableKind"`
		TableName string     `json:"TableName"`
		Columns   []v2Column `json:"Columns"`
		Rows      [][]any    `json:"Rows"`
	}
	tableHeader struct {
		FrameType string     `json:"FrameType"`
		TableID   int        `json:"TableId"`
		TableKind string     `json:"TableKind"`
		TableName string     `json:"TableName"`
		Columns   []v2Column `json:"Columns"`
	}
	tableFragment struct {
		FrameType         string  `json:"FrameType"`
		TableFragmentType string  `json:"TableFragmentType"`
		TableID           int     `json:"TableId"`
		Rows              [][]any `json:"Rows"`
	}
	tableCompletion struct {
		FrameType string `json:"FrameType"`
		TableID   int    `json:"TableId"`
		RowCount  int    `json:"RowCount"`
	}
	dataSetCompletion struct {
		FrameType string `json:"FrameType"`
		HasErrors bool   `json:"HasErrors"`
		Cancelled bool   `json:"Cancelled"`
	}
)

func v2Columns(cols []Column) []v2Column {
	out := make([]v2Column, len(cols))
	for i, c := range cols {
		out[i] = v2Column{c.Name, c.Type}
	}
	return out
}

// v2QueryBody is the fragmented v2 answer of a query: one frame per line,
// the first line opening the array with '[', the next ones with ',', and a
// last line ']'.
func v2QueryBody(r *result, info requestInfo) []byte {
	var frames []any
	frames = append(frames,
		dataSetHeader{"DataSetHeader", false, "v2.0", true, "EndOfTable"},
		dataTable{
			FrameType: "DataTable", TableID: 0, TableKind: "QueryProperties", TableName: "@ExtendedProperties",
			Columns: []v2Column{{"TableId", "int"}, {"Key", "string"}, {"Value", "dynamic"}},
			Rows:    [][]any{{1, "Visualization", json.RawMessage(visualization)}},
		},
		tableHeader{"TableHeader", 1, "PrimaryResult", "PrimaryResult", v2Columns(r.columns)},
	)
	for start := 0; start < len(r.rows) || start == 0; start += fragmentRows {
		end := min(start+fragmentRows, len(r.rows))
		rows := make([][]any, 0, end-start)
		for _, row := range r.rows[start:end] {
			out := make([]any, len(row))
			for i, v := range row {
				out[i] = wireValue(r.columns[i].Type, v)
			}
			rows = append(rows, out)
		}
		frames = append(frames, tableFragment{"TableFragment", "DataAppend", 1, rows})
		if end == len(r.rows) {
			break
		}
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.0000000Z")
	frames = append(frames,
		tableCompletion{"TableCompletion", 1, len(r.rows)},
		dataTable{
			FrameType: "DataTable", TableID: 2, TableKind: "QueryCompletionInformation", TableName: "QueryCompletionInformation",
			Columns: []v2Column{
				{"Timestamp", "datetime"}, {"ClientRequestId", "string"}, {"ActivityId", "guid"},
				{"SubActivityId", "guid"}, {"ParentActivityId", "guid"}, {"Level", "int"},
				{"LevelName", "string"}, {"StatusCode", "int"}, {"StatusCodeName", "string"},
				{"EventType", "int"}, {"EventTypeName", "string"}, {"Payload", "string"},
			},
			Rows: [][]any{{now, info.clientRequestID, info.activityID, info.activityID, info.activityID,
				4, "Info", 0, "S_OK (0)", 4, "QueryInfo", `{"Count":1,"Text":"Query completed successfully"}`}},
		},
		dataSetCompletion{"DataSetCompletion", false, false},
	)
	var buf bytes.Buffer
	for i, f := range frames {
		if i == 0 {
			buf.WriteByte('[')
		} else {
			buf.WriteByte(',')
		}
		buf.Write(encodeJSON(f))
		buf.WriteByte('\n')
	}
	buf.WriteString("]\n")
	return buf.Bytes()
}

// errorContext is the @context of a OneApiError.
type errorContext struct {
	Timestamp        string `json:"timestamp"`
	ServiceAlias     string `json:"serviceAlias"`
	MachineName      string `json:"machineName"`
	ProcessName      string `json:"processName"`
	ProcessID        int    `json:"processId"`
	ThreadID         int    `json:"threadId"`
	ClientRequestID  string `json:"clientRequestId"`
	ActivityID       string `json:"activityId"`
	SubActivityID    string `json:"subActivityId"`
	ActivityType     string `json:"activityType"`
	ParentActivityID string `json:"parentActivityId"`
	ActivityStack    string `json:"activityStack"`
}

// errorBody renders e as the OneApiError JSON body.
func errorBody(e *engineError, info requestInfo) []byte {
	type body struct {
		Code       string       `json:"code"`
		Message    string       `json:"message"`
		Type       string       `json:"@type"`
		Detail     string       `json:"@message"`
		Context    errorContext `json:"@context"`
		Permanent  bool         `json:"@permanent"`
		Text       string       `json:"@text,omitempty"`
		Database   string       `json:"@database,omitempty"`
		InnerError *innerError  `json:"innererror,omitempty"`
	}
	text := info.csl
	if len(text) > 1024 {
		text = text[:1024]
	}
	return encodeJSON(struct {
		Error body `json:"error"`
	}{body{
		Code: e.code, Message: e.message, Type: e.typ, Detail: e.detail,
		Context: errorContext{
			Timestamp:        time.Now().UTC().Format("2006-01-02T15:04:05.0000000Z"),
			ServiceAlias:     "KUSTOFAKE",
			MachineName:      "kustofake",
			ProcessName:      "kustofake",
			ProcessID:        os.Getpid(),
			ClientRequestID:  info.clientRequestID,
			ActivityID:       info.activityID,
			SubActivityID:    info.activityID,
			ActivityType:     "GW.Http.CallContext",
			ParentActivityID: info.activityID,
			ActivityStack:    "(Activity stack: CRID=" + info.clientRequestID + " ARID=" + info.activityID + " > GW.Http.CallContext/" + info.activityID + ")",
		},
		Permanent:  e.permanent,
		Text:       text,
		Database:   info.db,
		InnerError: e.inner,
	}})
}

// writeJSON writes a 200 JSON answer with the Kusto response headers.
func writeJSON(w http.ResponseWriter, status int, body []byte, info requestInfo) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("x-ms-client-request-id", info.clientRequestID)
	h.Set("x-ms-activity-id", info.activityID)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

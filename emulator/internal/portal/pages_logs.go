package portal

import (
	"net/http"
	"net/url"
)

// logsView is the runtime logs page's data.
type logsView struct {
	Level, Keyword string
	Entries        []logEntry
}

// logsPage shows an Eventstream's runtime logs, newest first as the logs
// route answers them, filtered by level and keyword.
func (p *Portal) logsPage(r *http.Request, principal string) (page, error) {
	api := eventstreamAPI(r)
	v := logsView{Level: r.URL.Query().Get("level"), Keyword: r.URL.Query().Get("keyword")}
	q := url.Values{}
	if v.Level != "" {
		q.Set("level", v.Level)
	}
	if v.Keyword != "" {
		q.Set("keyword", v.Keyword)
	}
	path := api + "/logs"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var logs list[logEntry]
	if err := p.get(r, principal, path, &logs); err != nil {
		return page{}, err
	}
	v.Entries = logs.Value
	var es item
	_ = p.get(r, principal, api, &es)
	crumbs := []crumb{home, workspaceCrumb(r, p.workspaceName(r, principal)),
		{Name: es.DisplayName, URL: Prefix + "workspaces/" + url.PathEscape(r.PathValue("ws")) + "/eventstreams/" + url.PathEscape(r.PathValue("id"))}}
	return page{Template: "logs", Title: "Runtime logs of " + es.DisplayName, Crumbs: crumbs, Body: v}, nil
}

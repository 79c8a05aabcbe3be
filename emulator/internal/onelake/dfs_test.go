package onelake

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDFSFileLifecycle follows the ADLS Gen2 Path operations OneLake
// supports (learn.microsoft.com/rest/api/storageservices/data-lake-storage-gen2,
// "Path - Create", "Path - Update" append/flush, "Path - Read", "Path - Get
// Properties", "Path - Delete", and rename by x-ms-rename-source), with the
// item named as name.Type (learn.microsoft.com/fabric/onelake/onelake-access-api).
func TestDFSFileLifecycle(t *testing.T) {
	e := newEnv(t)
	base := "/onelake/sales/orders.Lakehouse/Files/in/a.txt"
	e.do("PUT", base+"?resource=file", "admin", nil, "").want(201, "")
	e.do("PATCH", base+"?action=append&position=0", "admin", nil, "hello ").want(202, "")
	e.do("PATCH", base+"?action=append&position=6", "admin", nil, "onelake").want(202, "")
	if got := e.file("Files/in/a.txt"); got != "" {
		t.Fatalf("appended data visible before flush: %q", got)
	}
	e.do("PATCH", base+"?action=append&position=3", "admin", nil, "x").want(400, "InvalidAppendPosition")
	e.do("PATCH", base+"?action=flush&position=5", "admin", nil, "").want(400, "InvalidFlushPosition")
	e.do("PATCH", base+"?action=flush&position=13", "admin", nil, "").want(200, "")
	if got := e.file("Files/in/a.txt"); got != "hello onelake" {
		t.Fatalf("after flush: %q", got)
	}
	r := e.do("GET", base, "admin", map[string]string{"Range": "bytes=6-12"}, "").want(206, "")
	if r.body != "onelake" {
		t.Fatalf("range read %q", r.body)
	}
	r = e.do("HEAD", base, "admin", nil, "").want(200, "")
	if r.resp.Header.Get("Content-Length") != "13" || r.resp.Header.Get("x-ms-resource-type") != "file" ||
		r.resp.Header.Get("ETag") == "" || r.resp.Header.Get("Last-Modified") == "" {
		t.Fatalf("properties: %v", r.resp.Header)
	}
	r = e.do("HEAD", "/onelake/sales/orders.Lakehouse/Files/in", "admin", nil, "").want(200, "")
	if r.resp.Header.Get("x-ms-resource-type") != "directory" {
		t.Fatalf("directory properties: %v", r.resp.Header)
	}
	// Rename, refused onto an existing path under If-None-Match: *.
	e.do("PUT", "/onelake/sales/orders.Lakehouse/Files/b.txt?resource=file", "admin", nil, "").want(201, "")
	e.do("PUT", "/onelake/sales/orders.Lakehouse/Files/b.txt", "admin",
		map[string]string{"x-ms-rename-source": "/sales/orders.Lakehouse/Files/in/a.txt", "If-None-Match": "*"}, "").want(409, "PathAlreadyExists")
	e.do("PUT", "/onelake/sales/orders.Lakehouse/Files/c.txt?mode=legacy", "admin",
		map[string]string{"x-ms-rename-source": "/" + wsID + "/" + lhID + "/Files/in/a.txt"}, "").want(201, "")
	if got := e.file("Files/c.txt"); got != "hello onelake" {
		t.Fatalf("renamed: %q", got)
	}
	e.do("GET", base, "admin", nil, "").want(404, "BlobNotFound")
	e.do("DELETE", "/onelake/sales/orders.Lakehouse/Files?recursive=true", "admin", nil, "").want(403, "AuthorizationPermissionMismatch")
	e.do("PUT", "/onelake/sales/orders.Lakehouse/Files/in/x?resource=file", "admin", nil, "").want(201, "")
	e.do("DELETE", "/onelake/sales/orders.Lakehouse/Files/in?recursive=false", "admin", nil, "").want(409, "DirectoryNotEmpty")
	e.do("DELETE", "/onelake/sales/orders.Lakehouse/Files/in?recursive=true", "admin", nil, "").want(200, "")
	e.do("HEAD", "/onelake/sales/orders.Lakehouse/Files/in", "admin", nil, "").want(404, "BlobNotFound")
}

// TestDFSListPaths follows "Path - List" (Filesystem: resource=filesystem,
// directory, recursive, maxResults, continuation): OneLake's filesystem is
// the workspace and names start with the item as the caller named it.
func TestDFSListPaths(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"Tables/t/_delta_log/0.json", "Tables/t/part-0.parquet", "Tables/u/_delta_log/0.json"} {
		e.do("PUT", "/onelake/sales/orders.Lakehouse/"+p, "admin", map[string]string{"x-ms-blob-type": "BlockBlob"}, "{}").want(201, "")
	}
	var names []string
	token := ""
	for page := 0; page < 10; page++ {
		q := "/onelake/sales?resource=filesystem&recursive=true&maxResults=2&directory=" + lhID + "%2FTables"
		if token != "" {
			q += "&continuation=" + token
		}
		r := e.do("GET", q, "admin", nil, "").want(200, "")
		var out struct {
			Paths []struct {
				Name          string `json:"name"`
				IsDirectory   string `json:"isDirectory"`
				ContentLength string `json:"contentLength"`
			} `json:"paths"`
		}
		if err := json.Unmarshal([]byte(r.body), &out); err != nil {
			t.Fatal(err)
		}
		for _, p := range out.Paths {
			names = append(names, p.Name+"|"+p.IsDirectory+"|"+p.ContentLength)
		}
		if token = r.resp.Header.Get("x-ms-continuation"); token == "" {
			break
		}
	}
	want := []string{lhID + "/Tables/t|true|0", lhID + "/Tables/t/_delta_log|true|0", lhID + "/Tables/t/_delta_log/0.json||2",
		lhID + "/Tables/t/part-0.parquet||2", lhID + "/Tables/u|true|0", lhID + "/Tables/u/_delta_log|true|0", lhID + "/Tables/u/_delta_log/0.json||2"}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Fatalf("paths:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	r := e.do("GET", "/onelake/sales?resource=filesystem&recursive=false&directory=orders.Lakehouse/Tables", "admin", nil, "").want(200, "")
	if !strings.Contains(r.body, `"orders.Lakehouse/Tables/t"`) || strings.Contains(r.body, "_delta_log") {
		t.Fatalf("non-recursive listing: %s", r.body)
	}
	e.do("GET", "/onelake/sales?resource=filesystem&recursive=true&directory=orders.Lakehouse/Tables/none", "admin", nil, "").want(404, "PathNotFound")
	e.do("GET", "/onelake/sales?resource=filesystem&recursive=true", "admin", nil, "").want(400, "InvalidInput")
	e.do("GET", "/onelake/nosuch?resource=filesystem&directory=x", "admin", nil, "").want(404, "FilesystemNotFound")
	e.do("GET", "/onelake/sales?resource=filesystem&directory=nosuch.Lakehouse", "admin", nil, "").want(404, "PathNotFound")
}

package onelake

import (
	"encoding/xml"
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

type blobXML struct {
	Name       string       `xml:"Name"`
	Properties blobPropsXML `xml:"Properties"`
	Metadata   *blobMetaXML `xml:"Metadata,omitempty"`
}

type blobPropsXML struct {
	CreationTime  string `xml:"Creation-Time"`
	LastModified  string `xml:"Last-Modified"`
	ETag          string `xml:"Etag"`
	ContentLength int64  `xml:"Content-Length"`
	ContentType   string `xml:"Content-Type"`
	BlobType      string `xml:"BlobType"`
	ResourceType  string `xml:"ResourceType"`
}

type blobMetaXML struct {
	IsFolder string `xml:"hdi_isfolder"`
}

type prefixXML struct {
	Name string `xml:"Name"`
}

type enumerationXML struct {
	XMLName       xml.Name    `xml:"EnumerationResults"`
	ContainerName string      `xml:"ContainerName,attr"`
	Prefix        string      `xml:"Prefix"`
	Marker        string      `xml:"Marker,omitempty"`
	MaxResults    int         `xml:"MaxResults"`
	Delimiter     string      `xml:"Delimiter,omitempty"`
	Blobs         []blobXML   `xml:"Blobs>Blob"`
	Prefixes      []prefixXML `xml:"Blobs>BlobPrefix"`
	NextMarker    string      `xml:"NextMarker"`
}

// listBlobs serves Blob GET ?restype=container&comp=list&prefix=
// &delimiter=&marker=&maxresults=. Folders list as blobs with
// ResourceType directory and hdi_isfolder, as in a hierarchical account.
func (o *op) listBlobs() error {
	q := o.r.URL.Query()
	prefix, delim := q.Get("prefix"), q.Get("delimiter")
	itemSeg, _, _ := strings.Cut(prefix, "/")
	if _, err := o.listFrom(itemSeg); err != nil {
		return err
	}
	within := strings.TrimPrefix(strings.TrimPrefix(prefix, itemSeg), "/")
	dir := "." // the folder holding every match
	if i := strings.LastIndex(within, "/"); i >= 0 {
		segs, err := splitPath(within[:i])
		if err != nil {
			return err
		}
		if len(segs) > 0 {
			dir = path.Join(segs...)
		}
	}
	entries, err := o.walk(dir, true)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	entries = o.grouped(entries, prefix, delim, q.Get("startFrom"))
	page, next := paginate(entries, q.Get("marker"), maxResults(q.Get("maxresults")))
	res := enumerationXML{ContainerName: o.ws.ID, Prefix: prefix, Marker: q.Get("marker"), MaxResults: maxResults(q.Get("maxresults")), Delimiter: delim, NextMarker: next}
	for _, e := range page {
		res.add(o.name(e.rel), e)
	}
	o.w.Header().Set("Content-Type", "application/xml")
	o.w.WriteHeader(http.StatusOK)
	_, _ = o.w.Write([]byte(xml.Header))
	return xml.NewEncoder(o.w).Encode(res)
}

// grouped keeps the entries whose name starts with prefix and folds those
// past a delimiter into one prefix entry (fi nil).
// startFrom (object_store's list offset) drops names before it.
func (o *op) grouped(entries []entry, prefix, delim, startFrom string) []entry {
	var out []entry
	seen := map[string]bool{}
	for _, e := range entries {
		name := o.name(e.rel)
		if !strings.HasPrefix(name, prefix) || name < startFrom {
			continue
		}
		if delim != "" {
			if i := strings.Index(name[len(prefix):], delim); i >= 0 {
				p := name[:len(prefix)+i+len(delim)]
				if !seen[p] {
					seen[p] = true
					out = append(out, entry{rel: strings.TrimPrefix(p, o.itemSeg+"/")})
				}
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// add appends one page entry to the listing.
func (res *enumerationXML) add(name string, e entry) {
	if e.fi == nil {
		res.Prefixes = append(res.Prefixes, prefixXML{Name: name})
		return
	}
	t := e.fi.ModTime().UTC().Format(http.TimeFormat)
	b := blobXML{Name: name, Properties: blobPropsXML{CreationTime: t, LastModified: t, ETag: etag(e.fi),
		ContentLength: e.fi.Size(), ContentType: "application/octet-stream", BlobType: "BlockBlob", ResourceType: "file"}}
	if e.fi.IsDir() {
		b.Properties.ContentLength, b.Properties.ResourceType = 0, "directory"
		b.Metadata = &blobMetaXML{IsFolder: "true"}
	}
	res.Blobs = append(res.Blobs, b)
}

package onelake

import (
	"encoding/xml"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
)

// putBlob serves Blob PUT with x-ms-blob-type: BlockBlob.
func (o *op) putBlob() error {
	if t := o.r.Header.Get("x-ms-blob-type"); t != "BlockBlob" {
		return newErr(http.StatusBadRequest, "InvalidHeaderValue", "InvalidHeaderValue", "OneLake stores block blobs only, not %q", t)
	}
	data, err := o.body()
	if err != nil {
		return err
	}
	return o.withRoot(func(root *os.Root) error { return o.commit(root, data, http.StatusCreated) })
}

// putBlock serves PUT ?comp=block&blockid=: the block is staged.
func (o *op) putBlock(id string) error {
	if id == "" {
		return newErr(http.StatusBadRequest, "MissingRequiredQueryParameter", "MissingRequiredQueryParameter", "blockid is required")
	}
	data, err := o.body()
	if err != nil {
		return err
	}
	o.h.mu.Lock()
	o.h.blocks[o.key()+"\x00"+id] = data
	o.h.mu.Unlock()
	o.w.WriteHeader(http.StatusCreated)
	return nil
}

// blockList is the body of Put Block List.
type blockList struct {
	Blocks []struct {
		XMLName xml.Name
		ID      string `xml:",chardata"`
	} `xml:",any"`
}

// putBlockList serves PUT ?comp=blocklist: the staged blocks, in the
// order named, become the blob.
func (o *op) putBlockList() error {
	raw, err := o.body()
	if err != nil {
		return err
	}
	var bl blockList
	if err := xml.Unmarshal(raw, &bl); err != nil {
		return invalidInput("the block list is not valid XML: %v", err)
	}
	return o.withRoot(func(root *os.Root) error {
		var data []byte
		k := o.key() + "\x00"
		for _, b := range bl.Blocks {
			blk, ok := o.h.blocks[k+b.ID]
			if !ok {
				return newErr(http.StatusBadRequest, "InvalidBlockList", "InvalidBlockList", "block %q was not staged", b.ID)
			}
			data = append(data, blk...)
		}
		if err := o.commit(root, data, http.StatusCreated); err != nil {
			return err
		}
		for key := range o.h.blocks {
			if strings.HasPrefix(key, k) {
				delete(o.h.blocks, key)
			}
		}
		return nil
	})
}

// sourceRel parses a copy or rename source (a URL, or /{fs}/{path}) into a
// path under this op's item; the source must be in the same item.
func (o *op) sourceRel(src string) (string, error) {
	u, err := url.Parse(src)
	if err != nil {
		return "", invalidInput("the source %q is not a URL or path", src)
	}
	p, err := url.PathUnescape(u.EscapedPath())
	if err != nil {
		return "", invalidInput("the source %q is not validly percent-encoded", src)
	}
	p = strings.TrimPrefix(strings.TrimPrefix(p, "/"), strings.Trim(Prefix, "/")+"/")
	segs, err := splitPath(p)
	if err != nil {
		return "", err
	}
	if len(segs) < 4 || (segs[0] != o.ws.ID && segs[0] != o.ws.DisplayName) || segs[1] != o.itemSeg && segs[1] != o.item.ID {
		return "", invalidInput("OneLake copies and renames only within one item: the source %q is not under %s/%s/Tables|Files", src, o.ws.ID, o.itemSeg)
	}
	if segs[2] != "Tables" && segs[2] != "Files" {
		return "", forbidden("the source %q is not under Tables/ or Files/", src)
	}
	return path.Join(segs[2:]...), nil
}

// copyBlob serves PUT with x-ms-copy-source, synchronously.
func (o *op) copyBlob() error {
	src, err := o.sourceRel(o.r.Header.Get("x-ms-copy-source"))
	if err != nil {
		return err
	}
	return o.withRoot(func(root *os.Root) error {
		data, err := root.ReadFile(src)
		if err != nil {
			return o.statErr(src, err)
		}
		o.w.Header().Set("x-ms-copy-status", "success")
		o.w.Header().Set("x-ms-copy-id", o.id)
		return o.commit(root, data, http.StatusAccepted)
	})
}

// rename serves DFS PUT with x-ms-rename-source. With If-None-Match: * a
// file is linked, never replacing one another writer made.
func (o *op) rename() error {
	src, err := o.sourceRel(o.r.Header.Get("x-ms-rename-source"))
	if err != nil {
		return err
	}
	return o.withRoot(func(root *os.Root) error {
		sfi, err := root.Stat(src) // a link leading out of the item is refused
		if err != nil {
			return o.statErr(src, err)
		}
		rel := o.relPath()
		fi, exists, err := o.stat(root, rel)
		if err != nil {
			return err
		}
		if err := o.preconditions(fi, exists); err != nil {
			return err
		}
		if err := root.MkdirAll(path.Dir(rel), 0o700); err != nil {
			return err
		}
		if err := moveNoReplace(root, src, rel, sfi, o.r.Header.Get("If-None-Match") == "*"); errors.Is(err, fs.ErrExist) {
			return alreadyExists(o.name(rel))
		} else if err != nil {
			return err
		}
		return o.answer(root, http.StatusCreated)
	})
}

// moveNoReplace renames src to dst; a file that must be new is linked then
// unlinked, so an existing dst fails with fs.ErrExist.
func moveNoReplace(root *os.Root, src, dst string, sfi fs.FileInfo, mustBeNew bool) error {
	if mustBeNew && !sfi.IsDir() {
		if err := root.Link(src, dst); err != nil {
			return err
		}
		return root.Remove(src)
	}
	return root.Rename(src, dst)
}

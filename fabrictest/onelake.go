package fabrictest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/delta"
)

// storageAudience is the audience of OneLake's tokens.
const storageAudience = "https://storage.azure.com"

// readTable reads a table from its directory when this process can see
// it, else through the emulator's OneLake surface (an emulator in a
// container or on another machine): the table's files are downloaded into
// a temporary directory and read there with the same reader.
func (t Table) readTable() (*delta.Snapshot, error) {
	if _, err := os.Stat(filepath.Dir(t.Dir)); err == nil || t.URL == "" {
		return delta.ReadTable(t.Dir)
	}
	dir, err := os.MkdirTemp("", "fabrictest-onelake-")
	if err != nil {
		return nil, fmt.Errorf("read through OneLake: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := t.download(dir); err != nil {
		return nil, fmt.Errorf("read %s through OneLake: %w", t.URL, err)
	}
	return delta.ReadTable(dir)
}

// oneLakePath is a path of the OneLake surface: the workspace (container)
// and the rest, <item>/Tables/<table>.
type oneLakePath struct {
	base, ws, rest string
}

func parseOneLake(raw string) (oneLakePath, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return oneLakePath{}, err
	}
	ws, rest, ok := strings.Cut(strings.TrimPrefix(u.Path, "/onelake/"), "/")
	if !ok || !strings.HasPrefix(u.Path, "/onelake/") {
		return oneLakePath{}, fmt.Errorf("%s is not a OneLake URL of this emulator", raw)
	}
	return oneLakePath{base: u.Scheme + "://" + u.Host + "/onelake/" + ws, ws: ws, rest: rest}, nil
}

// download copies every file of the table into dir: a DFS listing of the
// table's folder, then a read of each file.
func (t Table) download(dir string) error {
	p, err := parseOneLake(t.URL)
	if err != nil {
		return err
	}
	tok, err := t.env.storageToken()
	if err != nil {
		return err
	}
	files, err := t.listFiles(p, tok)
	if err != nil {
		return err
	}
	for _, name := range files {
		rel := strings.TrimPrefix(name, p.rest+"/")
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("the listing names %q, outside the table", name)
		}
		if err := t.fetch(p.base+"/"+escapePath(name), tok, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return err
		}
	}
	if len(files) == 0 {
		return fs.ErrNotExist
	}
	return nil
}

// listFiles lists the table's files (path names from the workspace).
func (t Table) listFiles(p oneLakePath, tok string) ([]string, error) {
	var files []string
	cont := ""
	for {
		q := url.Values{"resource": {"filesystem"}, "recursive": {"true"}, "directory": {p.rest}}
		if cont != "" {
			q.Set("continuation", cont)
		}
		resp, err := t.get(p.base+"?"+q.Encode(), tok)
		if err != nil {
			return nil, err
		}
		var out struct {
			Paths []struct {
				Name        string `json:"name"`
				IsDirectory string `json:"isDirectory"`
			} `json:"paths"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("decode listing: %w", err)
		}
		for _, e := range out.Paths {
			if e.IsDirectory != "true" {
				files = append(files, e.Name)
			}
		}
		if cont = resp.Header.Get("x-ms-continuation"); cont == "" {
			return files, nil
		}
	}
}

// fetch downloads one file into dst.
func (t Table) fetch(u, tok, dst string) error {
	resp, err := t.get(u, tok)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("download %s: %w", u, err)
	}
	return f.Close()
}

// get sends a GET with the storage token; anything but 200 is an error
// (404: the table does not exist yet).
func (t Table) get(u, tok string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(t.env.ctx, t.env.c.cfg.callTimeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := t.env.c.http.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	resp.Body = cancelOnClose{resp.Body, cancel}
	if resp.StatusCode == http.StatusNotFound {
		resp.Body.Close()
		return nil, fs.ErrNotExist
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	defer c.cancel()
	return c.ReadCloser.Close()
}

// escapePath percent-encodes each segment of a slash path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// storageToken mints a storage-audience token for the environment's
// principal (POST /_emulator/token).
func (e *Env) storageToken() (string, error) {
	var out struct {
		AccessToken string `json:"access_token"`
	}
	body := map[string]any{"principal": e.principal, "audience": storageAudience}
	if _, err := e.do(http.MethodPost, "/_emulator/token", nil, body, 0, &out); err != nil {
		return "", fmt.Errorf("mint a storage token: %w", err)
	}
	if out.AccessToken == "" {
		return "", errors.New("mint a storage token: no access_token in the answer")
	}
	return out.AccessToken, nil
}

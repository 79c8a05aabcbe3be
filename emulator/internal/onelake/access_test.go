package onelake

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRolesAndTokens: OneLake honours workspace roles
// (learn.microsoft.com/fabric/onelake/security/get-started-security: a
// Viewer reads, a Contributor writes) and answers in Azure Storage's error
// shapes (learn.microsoft.com/rest/api/storageservices/status-and-error-codes2).
func TestRolesAndTokens(t *testing.T) {
	e := newEnv(t)
	p := "/onelake/sales/orders.Lakehouse/Files/v.txt"
	e.do("PUT", p, "admin", map[string]string{"x-ms-blob-type": "BlockBlob"}, "data").want(201, "")
	e.do("GET", p, "viewer", nil, "").want(200, "")
	r := e.do("PUT", p+"?resource=file", "viewer", nil, "").want(403, "AuthorizationPermissionMismatch")
	var dfs struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &dfs); err != nil || dfs.Error.Code != "AuthorizationPermissionMismatch" ||
		!strings.Contains(dfs.Error.Message, "RequestId:") {
		t.Fatalf("DFS error shape: %s", r.body)
	}
	r = e.do("PUT", p, "viewer", map[string]string{"x-ms-blob-type": "BlockBlob"}, "x").want(403, "AuthorizationPermissionMismatch")
	if !strings.HasPrefix(r.body, "<?xml") || !strings.Contains(r.body, "<Code>AuthorizationPermissionMismatch</Code>") {
		t.Fatalf("Blob error shape: %s", r.body)
	}
	e.do("DELETE", p, "viewer", nil, "").want(403, "AuthorizationPermissionMismatch")
	// No role: 403 by GUID; by name the workspace is not visible at all.
	e.do("GET", "/onelake/"+wsID+"/"+lhID+"/Files/v.txt", "other", nil, "").want(403, "AuthorizationPermissionMismatch")
	e.do("GET", p, "other", nil, "").want(404, "ContainerNotFound")
	e.do("GET", p, "", nil, "").want(401, "NoAuthenticationInformation")
	e.do("GET", p, "forged", nil, "").want(401, "InvalidAuthenticationInfo")
	if got := e.file("Files/v.txt"); got != "data" {
		t.Fatalf("a refused write changed the file: %q", got)
	}
	// Top folders are not writable, nor the item itself.
	e.do("PUT", "/onelake/sales/orders.Lakehouse/Other/x", "admin", map[string]string{"x-ms-blob-type": "BlockBlob"}, "x").want(403, "AuthorizationPermissionMismatch")
	e.do("DELETE", "/onelake/sales/orders.Lakehouse/Tables", "admin", nil, "").want(403, "AuthorizationPermissionMismatch")
	e.do("PUT", "/onelake/sales", "admin", nil, "").want(403, "AuthorizationPermissionMismatch")
}

// TestNothingOutsideTheItem: no path, encoded or not, reads or writes
// outside the item's directory: dot-dot segments (plain and
// percent-encoded), encoded slashes and backslashes, absolute paths, NUL,
// and symbolic links leading out.
func TestNothingOutsideTheItem(t *testing.T) {
	e := newEnv(t)
	secret := filepath.Join(e.root, "secret.txt")
	outside := t.TempDir()
	for _, f := range []string{secret, filepath.Join(outside, "secret.txt"), filepath.Join(e.root, wsID, "secret.txt")} {
		if err := os.WriteFile(f, []byte("top secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(e.item, "Files", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(e.item, "Files", "file-link")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, e.root, outside)
	hostile := []string{
		"orders.Lakehouse/Files/../../../secret.txt", "orders.Lakehouse/Files/%2e%2e/%2e%2e/%2e%2e/secret.txt",
		"orders.Lakehouse/Files/..%2f..%2f..%2fsecret.txt", "orders.Lakehouse/Files/..%2F..%2Fsecret.txt",
		"orders.Lakehouse/Files/..%5c..%5c..%5csecret.txt", "orders.Lakehouse/Files/%2fetc%2fpasswd",
		"orders.Lakehouse/Files/a%00b", "orders.Lakehouse/%2e%2e/secret.txt", "..%2fsecret.txt",
		"orders.Lakehouse/Files/link/secret.txt", "orders.Lakehouse/Files/file-link", "orders.Lakehouse/Files/./x",
		"orders.Lakehouse//etc/passwd", "orders.Lakehouse/Files/%", lhID + "/Files/%2E%2E/%2E%2E/secret.txt",
	}
	for _, h := range hostile {
		for _, m := range []string{"GET", "HEAD", "PUT", "DELETE"} {
			r := e.do(m, "/onelake/sales/"+h, "admin", map[string]string{"x-ms-blob-type": "BlockBlob"}, "pwned")
			if c := r.resp.StatusCode; c != 400 && c != 403 && c != 404 || strings.Contains(r.body, "top secret") {
				t.Fatalf("%s %s: %d %s", m, h, c, r.body)
			}
		}
		r := e.do("GET", "/onelake/sales?restype=container&comp=list&prefix="+h, "admin", nil, "")
		if strings.Contains(r.body, "<Blob>") || strings.Contains(r.body, "top secret") {
			t.Fatalf("listing %s: %s", h, r.body)
		}
		e.do("PUT", "/onelake/sales/orders.Lakehouse/Files/moved", "admin", map[string]string{"x-ms-rename-source": "/sales/" + h}, "")
	}
	if after := snapshot(t, e.root, outside); after != before {
		t.Fatalf("files changed:\nbefore %s\nafter  %s", before, after)
	}
}

// snapshot lists every file under the roots with its content.
func snapshot(t *testing.T, roots ...string) string {
	t.Helper()
	var b strings.Builder
	for _, root := range roots {
		err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			data, _ := os.ReadFile(p)
			b.WriteString(p + "=" + string(data) + ";")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIdentityFlags: --entra-apps, --entra-tenant and the repeatable
// --trusted-issuer (with FABRIC_TRUSTED_ISSUERS) become options; a bad
// apps file or tenant is refused with the flag's terms.
func TestIdentityFlags(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "apps.json")
	os.WriteFile(good, []byte(`[{"clientId": "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "clientSecret": "s"}]`), 0o600)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"clientId": "app", "clientSecret": "s"}]`), 0o600)
	t.Setenv("FABRIC_TRUSTED_ISSUERS", "https://a.example/t/v2.0,https://b.example")

	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	opts := identityFlags(fs)
	if err := fs.Parse([]string{"--entra-apps", good, "--entra-tenant", "72f988bf-86f1-41af-91ab-2d7cd011db47", "--trusted-issuer", "https://c.example"}); err != nil {
		t.Fatal(err)
	}
	got, err := opts()
	if err != nil || len(got) != 5 { // apps, tenant, three issuers
		t.Fatalf("options %d, %v", len(got), err)
	}

	fs = flag.NewFlagSet("serve", flag.ContinueOnError)
	opts = identityFlags(fs)
	_ = fs.Parse([]string{"--entra-apps", bad})
	if _, err := opts(); err == nil || !strings.Contains(err.Error(), `clientId "app" is not a GUID`) {
		t.Fatalf("bad apps file: %v", err)
	}
	err = serve([]string{"--addr", "127.0.0.1:0", "--kafka", "none", "--kafka-endpoint", "off", "--entra-tenant", "contoso"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "want a GUID") {
		t.Fatalf("bad tenant: %v", err)
	}
}

package emulator_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/fabrictest/fabrictest/emulator"
)

// These tests run Microsoft's Go clients, unchanged, against the emulator:
// azidentity's ClientSecretCredential and EnvironmentCredential
// (learn.microsoft.com/azure/developer/go/sdk/authentication/...,
// "Authenticate with a service principal") for the Fabric scope, and an
// azcore pipeline with its bearer token policy calling the Fabric REST API
// (learn.microsoft.com/rest/api/fabric/articles/get-started/fabric-api-quickstart).
// azidentity needs an https authority host and the bearer policy an https
// endpoint, so the emulator's handler is served over TLS; the clients are
// handed a transport that trusts that server's certificate (what a user
// does with the emulator's CA) and DisableInstanceDiscovery (see
// TestMSALInstanceDiscoveryGoesToMicrosoft).

const (
	spClientID    = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	spSecret      = "emulator-secret"
	spTenant      = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	fabricDefault = "https://api.fabric.microsoft.com/.default"
)

// tlsEnv is an emulator behind an httptest TLS server.
type tlsEnv struct {
	*testEnv
	hs   *httptest.Server
	logs *syncBuffer
}

func startTLSEnv(t *testing.T, opts ...emulator.Option) *tlsEnv {
	t.Helper()
	logs := &syncBuffer{}
	opts = append(opts, emulator.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	srv, err := emulator.New(opts...)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	hs := httptest.NewTLSServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); srv.Close() })
	tok, err := srv.Token("")
	if err != nil {
		t.Fatal(err)
	}
	return &tlsEnv{testEnv: &testEnv{t: t, srv: srv, url: hs.URL, token: tok, client: hs.Client()}, hs: hs, logs: logs}
}

// clientOptions point azidentity at the emulator: its URL as the authority
// host, a transport trusting its certificate.
func (e *tlsEnv) clientOptions() azcore.ClientOptions {
	return azcore.ClientOptions{Cloud: cloud.Configuration{ActiveDirectoryAuthorityHost: e.hs.URL + "/"}, Transport: e.hs.Client()}
}

func (e *tlsEnv) credential(secret string) *azidentity.ClientSecretCredential {
	e.t.Helper()
	cred, err := azidentity.NewClientSecretCredential(spTenant, spClientID, secret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: e.clientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		e.t.Fatal(err)
	}
	return cred
}

// fabricPipeline is an azcore pipeline with the bearer token policy.
func (e *tlsEnv) fabricPipeline(cred azcore.TokenCredential) runtime.Pipeline {
	return runtime.NewPipeline("fabrictest", "v0.0.1", runtime.PipelineOptions{
		PerRetry: []policy.Policy{runtime.NewBearerTokenPolicy(cred, []string{fabricDefault}, nil)},
	}, &policy.ClientOptions{Transport: e.hs.Client()})
}

// send runs one JSON request through pl and decodes the answer.
func (e *tlsEnv) send(pl runtime.Pipeline, method, path string, body any) (int, map[string]any) {
	e.t.Helper()
	req, err := runtime.NewRequest(context.Background(), method, e.hs.URL+path)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		if err := runtime.MarshalAsJSON(req, body); err != nil {
			e.t.Fatal(err)
		}
	}
	resp, err := pl.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	var out map[string]any
	if resp.ContentLength != 0 && strings.Contains(resp.Header.Get("Content-Type"), "json") {
		if err := runtime.UnmarshalAsJSON(resp, &out); err != nil {
			e.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode, out
}

func TestAzidentityClientSecretCredentialWithFabricAPI(t *testing.T) {
	e := startTLSEnv(t)
	pl := e.fabricPipeline(e.credential(spSecret))
	status, ws := e.send(pl, "POST", "/v1/workspaces", map[string]any{"displayName": "azidentity"})
	if status != 201 {
		t.Fatalf("create workspace: %d %v", status, ws)
	}
	wsID := ws["id"].(string)
	status, item := e.send(pl, "POST", "/v1/workspaces/"+wsID+"/items", map[string]any{"displayName": "orders", "type": "Lakehouse"})
	if status != 201 {
		t.Fatalf("create item: %d %v", status, item)
	}
	status, list := e.send(pl, "GET", "/v1/workspaces/"+wsID+"/items", nil)
	values, _ := list["value"].([]any)
	if status != 200 || len(values) != 1 || values[0].(map[string]any)["id"] != item["id"] {
		t.Fatalf("list items: %d %v", status, list)
	}
	// The workspace's Admin is the service principal: its oid is the one
	// the emulator derives from the client id, its type ServicePrincipal
	// (the token's idtyp "app"; Fabric's PrincipalType enumeration).
	status, ra := e.send(pl, "GET", "/v1/workspaces/"+wsID+"/roleAssignments/"+emulator.ServicePrincipalID(spClientID), nil)
	if principal, _ := ra["principal"].(map[string]any); status != 200 || ra["role"] != "Admin" || principal["type"] != "ServicePrincipal" {
		t.Fatalf("creator's role assignment: %d %v", status, ra)
	}
}

func TestAzidentityEnvironmentAndDefaultCredential(t *testing.T) {
	e := startTLSEnv(t)
	t.Setenv("AZURE_TENANT_ID", spTenant)
	t.Setenv("AZURE_CLIENT_ID", spClientID)
	t.Setenv("AZURE_CLIENT_SECRET", spSecret)
	t.Setenv("AZURE_AUTHORITY_HOST", e.hs.URL)
	cred, err := azidentity.NewEnvironmentCredential(&azidentity.EnvironmentCredentialOptions{
		ClientOptions: azcore.ClientOptions{Transport: e.hs.Client()}, DisableInstanceDiscovery: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	status, list := e.send(e.fabricPipeline(cred), "GET", "/v1/workspaces", nil)
	if status != 200 || list["value"] == nil {
		t.Fatalf("list workspaces: %d %v", status, list)
	}
	// DefaultAzureCredential reads the same variables (its first link is
	// EnvironmentCredential).
	dac, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{
		ClientOptions: azcore.ClientOptions{Transport: e.hs.Client()}, DisableInstanceDiscovery: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	status, ws := e.send(e.fabricPipeline(dac), "POST", "/v1/workspaces", map[string]any{"displayName": "dac"})
	if status != 201 {
		t.Fatalf("create workspace with DefaultAzureCredential: %d %v", status, ws)
	}
}

// TestAzidentityWrongSecret: a registered application's wrong secret is
// refused as Entra refuses it (AADSTS7000215), the client says so, the
// emulator logs one line and keeps serving.
func TestAzidentityWrongSecret(t *testing.T) {
	e := startTLSEnv(t)
	if _, err := e.srv.RegisterEntraApp(emulator.EntraApp{ClientID: spClientID, ClientSecret: spSecret}); err != nil {
		t.Fatal(err)
	}
	_, err := e.credential("not-the-secret").GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{fabricDefault}})
	var afe *azidentity.AuthenticationFailedError
	if !errors.As(err, &afe) || afe.RawResponse == nil || afe.RawResponse.StatusCode != 401 || !strings.Contains(err.Error(), "AADSTS7000215") {
		t.Fatalf("wrong secret: %v", err)
	}
	if n := strings.Count(e.logs.String(), "AADSTS7000215"); n != 1 {
		t.Fatalf("%d log lines name AADSTS7000215:\n%s", n, e.logs)
	}
	if _, err := e.credential(spSecret).GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{fabricDefault}}); err != nil {
		t.Fatalf("the right secret after a wrong one: %v", err)
	}
}

// hostRecorder records every request's host and sends only the emulator's.
type hostRecorder struct {
	mu    sync.Mutex
	hosts []string
	own   string
	next  policy.Transporter
}

func (h *hostRecorder) Do(req *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.hosts = append(h.hosts, req.URL.Host)
	h.mu.Unlock()
	if req.URL.Host != h.own {
		return nil, errors.New("test transport: only the emulator is reachable")
	}
	return h.next.Do(req)
}

// TestMSALInstanceDiscoveryGoesToMicrosoft documents why Go clients set
// DisableInstanceDiscovery: MSAL for Go sends instance discovery for an
// authority host it does not know to login.microsoftonline.com (authority.go,
// AADInstanceDiscovery), whatever the authority host; that host would not
// know the emulator (and is not reachable offline).
func TestMSALInstanceDiscoveryGoesToMicrosoft(t *testing.T) {
	e := startTLSEnv(t)
	u, _ := url.Parse(e.hs.URL)
	rec := &hostRecorder{own: u.Host, next: e.hs.Client()}
	opts := e.clientOptions()
	opts.Transport = rec
	opts.Retry = policy.RetryOptions{MaxRetries: -1}
	cred, err := azidentity.NewClientSecretCredential(spTenant, spClientID, spSecret, &azidentity.ClientSecretCredentialOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{fabricDefault}}); err == nil {
		t.Fatal("a token without reaching Microsoft's instance discovery: MSAL no longer needs DisableInstanceDiscovery; update the README")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.hosts) == 0 || rec.hosts[0] != "login.microsoftonline.com" {
		t.Fatalf("first request went to %v, want login.microsoftonline.com", rec.hosts)
	}
}

package entra

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"
)

// App is an application registration: a client id, its secret, and the
// object id of its service principal (the oid of its tokens, the principal
// id of its workspace role assignments).
type App struct {
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret,omitempty"`
	ObjectID     string `json:"objectId,omitempty"`
	DisplayName  string `json:"displayName,omitempty"`
}

// Registry answers when a client authenticates.
var (
	// ErrUnknownApp: the client id is not a registered application (AADSTS700016).
	ErrUnknownApp = errors.New("unknown application")
	// ErrWrongSecret: the secret is not the application's (AADSTS7000215).
	ErrWrongSecret = errors.New("wrong client secret")
)

// ServicePrincipalID is the object id of an unregistered client's service
// principal, the same for a client id in every tenant and across restarts:
// the name-based (SHA-1) UUID of "urn:fabrictest:service-principal:" and
// the lower-cased client id in the URL namespace.
func ServicePrincipalID(clientID string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("urn:fabrictest:service-principal:"+strings.ToLower(clientID))).String()
}

// Apps is the application registry. An open registry accepts any GUID
// client id with any non-empty secret and checks only the secrets of the
// applications registered in it; a strict one (an --entra-apps file) knows
// only its applications.
type Apps struct {
	mu     sync.RWMutex
	strict bool
	byID   map[string]App
}

// NewApps returns a registry of apps; strict refuses every other client.
func NewApps(strict bool, apps ...App) *Apps {
	r := &Apps{strict: strict, byID: map[string]App{}}
	for _, a := range apps {
		_, _ = r.Register(a) // callers validate first (LoadApps)
	}
	return r
}

// LoadApps reads a JSON list of applications ({clientId, clientSecret,
// objectId?, displayName?}).
func LoadApps(path string) ([]App, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read entra apps: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var apps []App
	if err := dec.Decode(&apps); err != nil {
		return nil, fmt.Errorf("read entra apps %s: want a JSON list of {clientId, clientSecret, objectId?, displayName?}: %w", path, err)
	}
	for i, a := range apps {
		if err := a.validate(); err != nil {
			return nil, fmt.Errorf("read entra apps %s: entry %d: %w", path, i, err)
		}
	}
	return apps, nil
}

func (a App) validate() error {
	if _, err := uuid.Parse(a.ClientID); err != nil {
		return fmt.Errorf("clientId %q is not a GUID", a.ClientID)
	}
	if a.ClientSecret == "" {
		return fmt.Errorf("application %s has no clientSecret", a.ClientID)
	}
	if _, err := uuid.Parse(a.ObjectID); a.ObjectID != "" && err != nil {
		return fmt.Errorf("objectId %q is not a GUID", a.ObjectID)
	}
	return nil
}

// Register adds or replaces an application and returns it with its object
// id (ServicePrincipalID when it names none).
func (r *Apps) Register(a App) (App, error) {
	if err := a.validate(); err != nil {
		return a, err
	}
	a.ClientID = strings.ToLower(a.ClientID)
	if a.ObjectID == "" {
		a.ObjectID = ServicePrincipalID(a.ClientID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byID[a.ClientID] = a
	return a, nil
}

// List returns the registered applications, without their secrets.
func (r *Apps) List() []App {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]App, 0, len(r.byID))
	for _, a := range r.byID {
		a.ClientSecret = ""
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y App) int { return strings.Compare(x.ClientID, y.ClientID) })
	return out
}

// Authenticate checks a client id and secret and returns its application.
func (r *Apps) Authenticate(clientID, secret string) (App, error) {
	if _, err := uuid.Parse(clientID); err != nil {
		return App{}, ErrUnknownApp
	}
	r.mu.RLock()
	a, ok := r.byID[strings.ToLower(clientID)]
	r.mu.RUnlock()
	switch {
	case !ok && r.strict:
		return App{}, ErrUnknownApp
	case !ok:
		return App{ClientID: strings.ToLower(clientID), ObjectID: ServicePrincipalID(clientID)}, nil
	case subtle.ConstantTimeCompare([]byte(a.ClientSecret), []byte(secret)) != 1:
		return App{}, ErrWrongSecret
	}
	return a, nil
}

package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
	"github.com/fabrictest/fabrictest/emulator/internal/control"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// Authorize implements eventhubs.Host: SAS tokens and SASL PLAIN with the
// keys of CustomEndpoint nodes, Entra tokens with the principal's role
// (the package documentation of eventhubs_host.go).
func (h ehHost) Authorize(ctx context.Context, c eventhubs.Credential) (eventhubs.Grant, error) {
	switch c.Type {
	case eventhubs.TokenSASLPlain:
		g, err := h.s.ingest.Authenticate(ctx, c.KeyName, c.Token)
		if err != nil {
			return eventhubs.Grant{}, authError(err)
		}
		return keyGrant(g, time.Time{}), nil
	case eventhubs.TokenSAS:
		return h.authorizeSAS(ctx, c)
	case eventhubs.TokenJWT:
		return h.authorizeJWT(ctx, c)
	}
	return eventhubs.Grant{}, fmt.Errorf("token type %q is not supported: %w", c.Type, eventhubs.ErrUnauthorized)
}

// keyGrant is the door's grant of a key's.
func keyGrant(g control.Grant, expires time.Time) eventhubs.Grant {
	return eventhubs.Grant{Entity: g.Topic, Send: !g.Listen, Listen: g.Listen, Expires: expires, KeyID: g.KeyID}
}

// authError words a refusal of credentials for the door.
func authError(err error) error {
	var ce *control.Error
	if errors.As(err, &ce) {
		return fmt.Errorf("%s: %w", ce.Error(), eventhubs.ErrUnauthorized)
	}
	return err
}

// authorizeSAS checks a SAS token against the keys of its key name.
func (h ehHost) authorizeSAS(ctx context.Context, c eventhubs.Credential) (eventhubs.Grant, error) {
	sas, err := eventhubs.ParseSAS(c.Token)
	if err != nil {
		return eventhubs.Grant{}, fmt.Errorf("%v: %w", err, eventhubs.ErrUnauthorized)
	}
	if c.Audience != "" && !eventhubs.Covers(sas.Resource, c.Audience) {
		return eventhubs.Grant{}, fmt.Errorf("the token's resource %q does not cover %q: %w", sas.Resource, c.Audience, eventhubs.ErrUnauthorized)
	}
	entity, _, _ := strings.Cut(eventhubs.EntityPath(sas.Resource), "/")
	now := time.Now()
	g, err := h.s.ingest.AuthenticateKey(ctx, sas.KeyName, "", func(key string) error { return sas.Verify(key, now) })
	if err != nil {
		return eventhubs.Grant{}, authError(err)
	}
	if entity != "" && entity != strings.ToLower(g.Topic) {
		return eventhubs.Grant{}, fmt.Errorf("the token's resource %q is not the event hub of %s: %w", sas.Resource, sas.KeyName, eventhubs.ErrUnauthorized)
	}
	return keyGrant(g, sas.Expiry), nil
}

// authorizeJWT checks an Entra token for Event Hubs and the principal's
// role in the workspace of the event hub the put-token names.
func (h ehHost) authorizeJWT(ctx context.Context, c eventhubs.Credential) (eventhubs.Grant, error) {
	claims, err := h.s.verifier.VerifyEventHubs(ctx, c.Token)
	if err != nil {
		return eventhubs.Grant{}, fmt.Errorf("%v: %w", err, eventhubs.ErrUnauthorized)
	}
	path := eventhubs.EntityPath(c.Audience)
	lower, _, _ := strings.Cut(path, "/")
	hub := h.hubNamed(c.Audience, lower)
	it, _, err := h.hubOf(ctx, hub)
	if err != nil {
		return eventhubs.Grant{}, err
	}
	role, err := h.s.store.RoleOf(ctx, it.WorkspaceID, claims.ObjectID)
	if err != nil {
		return eventhubs.Grant{}, err
	}
	if role < store.RoleContributor {
		return eventhubs.Grant{}, fmt.Errorf("the principal %s has role %s in workspace %s; sending and receiving need %s or higher: %w",
			claims.ObjectID, role, it.WorkspaceID, store.RoleContributor, eventhubs.ErrUnauthorized)
	}
	var exp time.Time
	if claims.ExpiresAt != nil {
		exp = claims.ExpiresAt.Time
	}
	return eventhubs.Grant{Entity: hub, Send: true, Listen: true, Expires: exp, KeyID: principalKeyPrefix + claims.ObjectID}, nil
}

// hubNamed is the first path segment of audience as written (topics keep
// their case; EntityPath lower-cases).
func (h ehHost) hubNamed(audience, lower string) string {
	i := strings.Index(strings.ToLower(audience), lower)
	if lower == "" || i < 0 {
		return lower
	}
	return audience[i : i+len(lower)]
}

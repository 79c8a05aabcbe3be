package portal

import (
	"sync"
	"time"
)

// tokenReuse is how long the portal reuses a token it minted for a
// principal: signing one costs about a millisecond of RSA, and a page
// asks the API several times. It is far below the tokens' lifetime.
const tokenReuse = time.Minute

// tokens keeps the last token minted per principal.
type tokens struct {
	mu   sync.Mutex
	now  func() time.Time
	mint func(principal string) (string, error)
	last map[string]minted
}

// minted is a token and when it was minted.
type minted struct {
	tok string
	at  time.Time
}

// get returns a token for principal, minting one when the last is older
// than tokenReuse.
func (t *tokens) get(principal string) (string, error) {
	now := t.now()
	t.mu.Lock()
	m, ok := t.last[principal]
	t.mu.Unlock()
	if ok && now.Sub(m.at) < tokenReuse && !now.Before(m.at) {
		return m.tok, nil
	}
	tok, err := t.mint(principal)
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	if len(t.last) > 1000 { // many principals tried: start again
		t.last = map[string]minted{}
	}
	t.last[principal] = minted{tok: tok, at: now}
	t.mu.Unlock()
	return tok, nil
}

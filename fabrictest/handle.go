package fabrictest

import (
	"context"
	"testing"
)

// handle is what every item handle (Workspace, Eventstream, Lakehouse,
// Table, Eventhouse, Reflex, Item) embeds: the environment view its calls
// go through, which carries the principal they act as, the testing.TB told
// about failures and the context that bounds them. Its methods are defined
// here once; As, WithT and WithContext rebind it on any handle.
type handle struct{ env *Env }

// Env returns the environment view the handle's calls go through.
func (h handle) Env() *Env { return h.env }

// view gives the generic rebinding functions the handle inside an item.
func (h *handle) view() *handle { return h }

// handleOf is satisfied by a pointer to an item handle: a type that embeds
// handle.
type handleOf[H any] interface {
	*H
	view() *handle
}

// rebind returns h with its environment view replaced by f of it.
func rebind[H any, P handleOf[H]](h H, f func(*Env) *Env) H {
	v := P(&h).view()
	v.env = f(v.env)
	return h
}

// As returns the item handle h acting as principal (see Env.As), for any
// handle: Workspace, Eventstream, Lakehouse, Table, Eventhouse, Reflex or
// Item.
//
//	_, err := fabrictest.As(es, "viewer").TryProduce("x") // 403 InsufficientPrivileges
func As[H any, P handleOf[H]](h H, principal string) H {
	return rebind[H, P](h, func(e *Env) *Env { return e.As(principal) })
}

// WithT returns the item handle h reporting failures to t (see Env.WithT),
// for subtests that use a handle their parent made.
func WithT[H any, P handleOf[H]](h H, t testing.TB) H {
	return rebind[H, P](h, func(e *Env) *Env { return e.WithT(t) })
}

// WithContext returns the item handle h with its calls bounded by ctx (see
// Env.WithContext), such as a ginkgo SpecContext.
func WithContext[H any, P handleOf[H]](h H, ctx context.Context) H {
	return rebind[H, P](h, func(e *Env) *Env { return e.WithContext(ctx) })
}

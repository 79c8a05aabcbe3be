package control

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/runtime"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
	"github.com/google/uuid"
)

// ProvisionEventstream gives Eventstream it (stored) its DefaultStream,
// unless a definition named it already, and creates the stream's topic
// when a broker is attached (else the first produce does).
func (p *Plane) ProvisionEventstream(ctx context.Context, it *store.Item) error {
	props, err := eventstream.Decode(*it)
	if err != nil {
		return err
	}
	if len(props.Streams) == 0 {
		ds := uuid.NewString()
		props.Streams = []eventstream.Stream{{ID: ds, Name: it.DisplayName + "-stream",
			Type: eventstream.DefaultStreamType, Topic: eventstream.DefaultTopic(it.ID, ds)}}
	}
	if err := eventstream.Save(ctx, p.cfg.Store, it, props); err != nil {
		return err
	}
	if !p.cfg.Broker.Enabled() {
		return nil
	}
	if err := p.cfg.Broker.CreateTopic(ctx, props.Streams[0].Topic); err != nil {
		return runtime.KafkaError(err)
	}
	return nil
}

// releaseEventstream deletes the topics of Eventstream it's streams and
// forgets the keys of its CustomEndpoint nodes.
func (p *Plane) releaseEventstream(ctx context.Context, it store.Item) error {
	props, err := eventstream.Decode(it)
	if err != nil {
		return err
	}
	if err := p.CloseEndpoints(ctx, props.CustomEndpoints()...); err != nil {
		return err
	}
	if !p.cfg.Broker.Enabled() {
		return nil
	}
	for _, s := range props.Streams {
		if err := p.cfg.Broker.DeleteTopic(ctx, s.Topic); err != nil {
			return runtime.KafkaError(err)
		}
	}
	return nil
}

// LakehouseDir is where a Lakehouse's OneLake files live:
// <OneLakeDir>/<workspaceId>/<lakehouseId>.
func (p *Plane) LakehouseDir(it store.Item) string {
	return filepath.Join(p.cfg.OneLakeDir, it.WorkspaceID, it.ID)
}

// DeleteItem removes item ref (RemoveItem) when who is a Contributor of
// its workspace.
func (p *Plane) DeleteItem(ctx context.Context, who Caller, ref ItemRef) error {
	it, err := p.Item(ctx, who, ref, store.RoleContributor)
	if err != nil {
		return err
	}
	return p.RemoveItem(ctx, it)
}

// RemoveItem stops the drains that read or write item it, releases what
// its kind holds (an Eventstream's topics and endpoint keys, a Lakehouse's
// files, an Eventhouse's databases), then deletes it with its bindings.
// The caller checked who may.
func (p *Plane) RemoveItem(ctx context.Context, it store.Item) error {
	// Before its topic goes, so no source writes it again.
	if err := p.rt.StopItem(ctx, it.ID); err != nil {
		return err
	}
	defer p.changed(it.ID)
	if err := p.release(ctx, it); err != nil {
		return err
	}
	if err := p.cfg.Store.DeleteItem(ctx, it.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// release frees what item it's kind holds beyond the store.
func (p *Plane) release(ctx context.Context, it store.Item) error {
	switch it.Type {
	case TypeEventstream:
		return p.releaseEventstream(ctx, it)
	case TypeLakehouse:
		return os.RemoveAll(p.LakehouseDir(it))
	case TypeEventhouse:
		dbs, err := p.DatabasesOf(ctx, it)
		if err != nil {
			return err
		}
		for _, db := range dbs {
			if err := p.RemoveItem(ctx, db); err != nil {
				return err
			}
		}
	}
	return nil
}

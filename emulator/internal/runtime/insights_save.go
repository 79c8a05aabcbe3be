package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/insights"
)

// InsightsSaveEvery is how often changed data insights are written to the
// store (write-behind). A hard crash loses at most the counts and logs of
// this last interval; Close saves everything.
const InsightsSaveEvery = 2 * time.Second

// insightsSaver writes the registry's changed nodes to the store every
// InsightsSaveEvery and once more when stopped.
type insightsSaver struct {
	rt   *Runtime
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// startInsights restores the saved data insights and starts saving them;
// it returns nil without a store.
func (rt *Runtime) startInsights() *insightsSaver {
	if rt.cfg.Store == nil {
		return nil
	}
	saved, err := rt.cfg.Store.ListInsights(context.Background())
	if err != nil {
		rt.cfg.Logger.Warn("data insights: could not read what was saved; counting from zero", "err", err)
	}
	for id, raw := range saved {
		var st insights.State
		if err := json.Unmarshal(raw, &st); err != nil {
			rt.cfg.Logger.Warn("data insights: could not read a node's saved state", "node", id, "err", err)
			continue
		}
		rt.insights.Restore(id, st)
	}
	s := &insightsSaver{rt: rt, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *insightsSaver) run() {
	defer close(s.done)
	t := time.NewTicker(InsightsSaveEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			s.save()
			return
		case <-t.C:
			s.save()
		}
	}
}

// save writes the changed nodes; those that fail are marked to be saved
// again.
func (s *insightsSaver) save() {
	changed := s.rt.insights.Changed()
	if len(changed) == 0 {
		return
	}
	raw := make(map[string][]byte, len(changed))
	for id, st := range changed {
		raw[id], _ = json.Marshal(st) // counters and logs of plain values
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.rt.cfg.Store.PutInsights(ctx, raw); err != nil {
		s.rt.cfg.Logger.Warn("data insights: save failed; retrying", "err", err)
		for id := range changed {
			s.rt.insights.MarkChanged(id)
		}
	}
}

// close saves what changed and stops saving.
func (s *insightsSaver) close() {
	if s == nil {
		return
	}
	s.once.Do(func() { close(s.stop) })
	<-s.done
}

// SaveInsights writes the changed data insights now (tests, shutdown).
func (rt *Runtime) SaveInsights() {
	if rt.saver != nil {
		rt.saver.save()
	}
}

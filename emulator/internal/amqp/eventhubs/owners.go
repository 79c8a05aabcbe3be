package eventhubs

import (
	"fmt"
	"strings"
	"sync"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// maxReadersPerPartition is Event Hubs' limit of receivers per consumer
// group and partition.
const maxReadersPerPartition = 5

// owners tracks the receivers of each hub, consumer group and partition,
// so that a higher owner level (epoch) takes the partition over.
type owners struct {
	mu sync.Mutex
	m  map[string][]*link
}

// newOwners returns an empty registry.
func newOwners() *owners { return &owners{m: map[string][]*link{}} }

// ownerKey names a partition of a consumer group.
func ownerKey(a address) string {
	return fmt.Sprintf("%s/%s/%d", strings.ToLower(a.hub), strings.ToLower(a.group), a.partition)
}

// claim registers l; it returns the receivers l takes over, or the error
// that refuses l.
func (o *owners) claim(key string, l *link) ([]*link, *amqp.Error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	cur := o.m[key]
	var stolen, kept []*link
	for _, r := range cur {
		switch {
		case l.epoch == nil && r.epoch != nil:
			return nil, &amqp.Error{Condition: amqp.CondStolen, Description: fmt.Sprintf("At least one receiver for the endpoint is created with epoch of '%d', and so non-epoch receiver is not allowed. Either reconnect with a higher epoch, or make sure all epoch receivers are closed or disconnected.", *r.epoch)}
		case l.epoch != nil && r.epoch != nil && *r.epoch > *l.epoch:
			return nil, &amqp.Error{Condition: amqp.CondStolen, Description: fmt.Sprintf("Receiver '%s' with epoch '%d' cannot be created because a receiver with a higher epoch '%d' exists.", l.name, *l.epoch, *r.epoch)}
		case l.epoch != nil:
			stolen = append(stolen, r)
		default:
			kept = append(kept, r)
		}
	}
	if l.epoch == nil && len(kept) >= maxReadersPerPartition {
		return nil, &amqp.Error{Condition: amqp.CondResourceLimitExceeded, Description: fmt.Sprintf("Exceeded the maximum number of allowed receivers per partition in a consumer group which is %d.", maxReadersPerPartition)}
	}
	o.m[key] = append(kept, l)
	l.owned = key
	return stolen, nil
}

// release forgets l.
func (o *owners) release(key string, l *link) {
	o.mu.Lock()
	defer o.mu.Unlock()
	cur := o.m[key]
	for i, r := range cur {
		if r == l {
			cur = append(cur[:i:i], cur[i+1:]...)
			break
		}
	}
	if len(cur) == 0 {
		delete(o.m, key)
	} else {
		o.m[key] = cur
	}
}

// stealDescription is the detach description of a receiver taken over.
func stealDescription(by, victim *link) string {
	old := "none"
	if victim.epoch != nil {
		old = fmt.Sprint(*victim.epoch)
	}
	return fmt.Sprintf("New receiver '%s' with higher epoch of '%d' is created hence current receiver '%s' with epoch '%s' is getting disconnected. If you are recreating the receiver, make sure a higher epoch is used.", by.name, *by.epoch, victim.name, old)
}

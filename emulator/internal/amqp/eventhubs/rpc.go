package eventhubs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabrictest/fabrictest/emulator/internal/amqp"
)

// maxReplies bounds the replies queued on one reply link.
const maxReplies = 64

// rpcResult is a node's answer to a request.
type rpcResult struct {
	code  int32
	desc  string
	value any // the amqp-value body; nil for none
}

// rpcHandler answers one request of a node.
type rpcHandler func(ctx context.Context, req *amqp.Message) rpcResult

// rpc decodes a request, runs h and queues the answer on the reply link.
func (l *link) rpc(payload []byte, h rpcHandler) *amqp.Error {
	req, err := amqp.DecodeMessage(payload)
	if err != nil {
		return &amqp.Error{Condition: amqp.CondDecodeError, Description: err.Error()}
	}
	var replyTo string
	var id any
	if req.Properties != nil {
		replyTo, id = req.Properties.ReplyTo, req.Properties.MessageID
		if id == nil {
			id = req.Properties.CorrelationID
		}
	}
	out := l.s.replyLink(l.addr.kind, replyTo)
	if out == nil {
		return &amqp.Error{Condition: amqp.CondNotFound, Description: fmt.Sprintf("no receiver link on %s for reply-to %q", l.name, replyTo)}
	}
	r := h(l.ctx, req)
	res := &amqp.Message{
		Properties: &amqp.Properties{CorrelationID: id},
		ApplicationProperties: amqp.Map{
			{Key: "status-code", Value: r.code}, {Key: "status-description", Value: r.desc},
		},
	}
	if r.value != nil {
		res.Value, res.HasValue = r.value, true
	}
	if !out.enqueue(res) {
		return &amqp.Error{Condition: amqp.CondResourceLimitExceeded, Description: "too many unanswered requests on the reply link"}
	}
	return nil
}

// replyLink finds the link the client receives a node's replies on.
func (s *session) replyLink(kind nodeKind, replyTo string) *outLink {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	var any *outLink
	for _, l := range s.links {
		if l.out == nil || l.addr.kind != kind || l.detachSent {
			continue
		}
		if l.target == replyTo {
			return l.out
		}
		any = l.out
	}
	return any
}

// appString reads a string application property.
func appString(m *amqp.Message, key string) string {
	v, _ := m.ApplicationProperties.Get(key)
	s, _ := v.(string)
	return s
}

// putToken answers a $cbs put-token request: the host checks the token
// and the grant is kept for the audience.
func (c *conn) putToken(ctx context.Context, req *amqp.Message) rpcResult {
	op, typ, name := appString(req, "operation"), appString(req, "type"), appString(req, "name")
	token, _ := req.Value.(string)
	switch {
	case op != "put-token":
		return rpcResult{code: 400, desc: fmt.Sprintf("The operation %q is not supported on $cbs.", op)}
	case typ == "" || name == "" || token == "":
		return rpcResult{code: 400, desc: "put-token needs the type and name application properties and a string token body."}
	}
	g, err := c.host.Authorize(ctx, Credential{Type: typ, Token: token, Audience: name})
	if err != nil {
		return rpcResult{code: statusOf(err), desc: err.Error()}
	}
	key := EntityPath(name)
	c.mu.Lock()
	_, had := c.grants[key]
	full := !had && len(c.grants) >= c.opts.MaxTokens
	if !full {
		c.grants[key] = g
	}
	c.mu.Unlock()
	if full {
		return rpcResult{code: 403, desc: fmt.Sprintf("A connection holds at most %d tokens.", c.opts.MaxTokens)}
	}
	return rpcResult{code: 202, desc: "Accepted"}
}

// statusOf maps a host error to an HTTP-like status code.
func statusOf(err error) int32 {
	switch {
	case errors.Is(err, ErrUnauthorized), errors.Is(err, ErrBadSAS):
		return 401
	case errors.Is(err, ErrNotFound):
		return 404
	case errors.Is(err, ErrServerBusy):
		return 503
	}
	return 500
}

// management answers a $management READ of an event hub or a partition.
func (c *conn) management(ctx context.Context, req *amqp.Message) rpcResult {
	op, typ, name := appString(req, "operation"), appString(req, "type"), appString(req, "name")
	if op != "READ" {
		return rpcResult{code: 400, desc: fmt.Sprintf("The operation %q is not supported on $management.", op)}
	}
	if err := c.managementGrant(ctx, name, appString(req, "security_token")); err != nil {
		return rpcResult{code: statusOf(err), desc: err.Error()}
	}
	info, err := c.host.Hub(ctx, name)
	if err != nil {
		return rpcResult{code: statusOf(err), desc: err.Error()}
	}
	switch typ {
	case "com.microsoft:eventhub":
		return rpcResult{code: 200, desc: "OK", value: hubValue(info)}
	case "com.microsoft:partition":
		return c.partitionRead(ctx, info, appString(req, "partition"))
	}
	return rpcResult{code: 400, desc: fmt.Sprintf("The type %q is not supported on $management.", typ)}
}

// managementGrant checks a READ: its security token, or else a grant the
// connection holds for the hub.
func (c *conn) managementGrant(ctx context.Context, hub, token string) error {
	if token == "" {
		if _, ok := c.grantFor(hub, ""); ok {
			return nil
		}
		return fmt.Errorf("no token for '%s': %w", hub, ErrUnauthorized)
	}
	typ := TokenJWT
	if strings.HasPrefix(token, sasPrefix) {
		typ = TokenSAS
	}
	g, err := c.host.Authorize(ctx, Credential{Type: typ, Token: token, Audience: hub})
	if err != nil {
		return err
	}
	if g.Entity != "" && !strings.EqualFold(g.Entity, hub) {
		return fmt.Errorf("the token does not cover '%s': %w", hub, ErrUnauthorized)
	}
	return nil
}

// hubValue is the body of an event hub READ.
func hubValue(info HubInfo) amqp.Map {
	ids := make(amqp.Array, info.PartitionCount)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	return amqp.Map{
		{Key: "name", Value: info.Name},
		{Key: "type", Value: "com.microsoft:eventhub"},
		{Key: "created_at", Value: info.CreatedAt.UTC()},
		{Key: "partition_count", Value: int32(info.PartitionCount)},
		{Key: "partition_ids", Value: ids},
	}
}

// partitionRead answers a partition READ.
func (c *conn) partitionRead(ctx context.Context, info HubInfo, id string) rpcResult {
	n, err := partitionNumber(id)
	if err != nil || n >= info.PartitionCount {
		return rpcResult{code: 404, desc: fmt.Sprintf("The partition '%s' of event hub '%s' does not exist.", id, info.Name)}
	}
	p, err := c.host.PartitionInfo(ctx, info.Name, n)
	if err != nil {
		return rpcResult{code: statusOf(err), desc: err.Error()}
	}
	t := p.LastEnqueuedTime
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return rpcResult{code: 200, desc: "OK", value: amqp.Map{
		{Key: "name", Value: info.Name},
		{Key: "type", Value: "com.microsoft:partition"},
		{Key: "partition", Value: id},
		{Key: "begin_sequence_number", Value: p.BeginSequenceNumber},
		{Key: "last_enqueued_sequence_number", Value: p.LastSequenceNumber},
		{Key: "last_enqueued_offset", Value: fmt.Sprint(p.LastOffset)},
		{Key: "last_enqueued_time_utc", Value: t.UTC()},
		{Key: "is_partition_empty", Value: p.Empty},
	}}
}

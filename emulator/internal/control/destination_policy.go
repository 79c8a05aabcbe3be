package control

import (
	"encoding/json"
	"strings"

	"github.com/fabrictest/fabrictest/emulator/internal/definition"
	"github.com/fabrictest/fabrictest/emulator/internal/eventstream"
	"github.com/fabrictest/fabrictest/emulator/internal/fabricerr"
	"github.com/fabrictest/fabrictest/emulator/internal/store"
)

// policySettings are a binding's emulator-only delivery settings (the
// native body's errorPolicy, deadLetterTopic and schemaMode; a
// definition's x-fabrictest extension), as given.
type policySettings struct {
	// ErrorPolicy is drop (the default, Fabric's), retry, dlq or fail.
	ErrorPolicy string
	// DeadLetterTopic is dlq's Kafka topic ("" for the default,
	// eventstream.DeadLetterTopic).
	DeadLetterTopic string
	// SchemaMode is a Lakehouse destination's enforce (the default,
	// Fabric's) or evolve.
	SchemaMode string
}

var errorPolicies = []string{eventstream.PolicyDrop, eventstream.PolicyRetry, eventstream.PolicyDLQ, eventstream.PolicyFail}

// withPolicy checks p for a binding of type typ on Eventstream es and
// returns spec with it stored; defaults are stored as "" (so a binding
// that sets nothing keeps the spec it had).
func withPolicy(spec json.RawMessage, es store.Item, typ string, p policySettings, field func(string) string) (json.RawMessage, error) {
	if p == (policySettings{}) {
		return spec, nil
	}
	if typ != "Lakehouse" && typ != "Eventhouse" {
		f := "schemaMode"
		if p.DeadLetterTopic != "" {
			f = "deadLetterTopic"
		}
		if p.ErrorPolicy != "" {
			f = "errorPolicy"
		}
		return nil, fabricerr.BadParameter(field(f), "the emulator's delivery settings apply to Lakehouse and Eventhouse destinations, not to a %s destination", typ)
	}
	policy, err := errorPolicy(p.ErrorPolicy, field)
	if err != nil {
		return nil, err
	}
	if err := deadLetterTopic(es, policy, p.DeadLetterTopic, field); err != nil {
		return nil, err
	}
	mode, err := schemaMode(typ, p.SchemaMode, field)
	if err != nil {
		return nil, err
	}
	s := eventstream.Spec{}
	if len(spec) > 0 {
		if err := json.Unmarshal(spec, &s); err != nil {
			return nil, err
		}
	}
	s.ErrorPolicy, s.DeadLetterTopic, s.SchemaMode = policy, p.DeadLetterTopic, mode
	if s.ErrorPolicy == eventstream.PolicyDrop {
		s.ErrorPolicy = ""
	}
	if s.SchemaMode == eventstream.SchemaEnforce {
		s.SchemaMode = ""
	}
	return s.Encode(), nil
}

// errorPolicy is the canonical spelling of policy (any case; "" is drop).
func errorPolicy(policy string, field func(string) string) (string, error) {
	if policy == "" {
		return eventstream.PolicyDrop, nil
	}
	for _, p := range errorPolicies {
		if strings.EqualFold(p, policy) {
			return p, nil
		}
	}
	return "", fabricerr.BadParameter(field("errorPolicy"), "%q is not one of %s", policy, strings.Join(errorPolicies, ", "))
}

// deadLetterTopic checks a dlq binding's topic: a Kafka topic name (1 to
// 249 letters, digits, '.', '_' and '-', not "." or "..", not an internal
// "__" topic) that is not one of the Eventstream's own stream topics
// (<eventstreamId>.<streamId>), which would feed the records back in.
func deadLetterTopic(es store.Item, policy, topic string, field func(string) string) error {
	switch {
	case topic == "":
		return nil
	case policy != eventstream.PolicyDLQ:
		return fabricerr.BadParameter(field("deadLetterTopic"), "only the dlq error policy writes to a dead-letter topic; set errorPolicy to dlq or leave deadLetterTopic out")
	case len(topic) > 249 || topic == "." || topic == ".." || strings.Trim(topic, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "":
		return fabricerr.BadParameter(field("deadLetterTopic"), "%q is not a Kafka topic name: 1 to 249 letters, digits, '.', '_' and '-', not . or ..", topic)
	case strings.HasPrefix(topic, "__"):
		return fabricerr.BadParameter(field("deadLetterTopic"), "%q: topics starting with __ are Kafka's own", topic)
	case strings.HasPrefix(topic, es.ID+".") && !strings.HasPrefix(topic, es.ID+".dlq."):
		return fabricerr.BadParameter(field("deadLetterTopic"), "%q is a topic of this Eventstream's streams; dead letters written there would be delivered again", topic)
	}
	return nil
}

// schemaMode checks a schema mode, which only a Lakehouse destination has.
func schemaMode(typ, mode string, field func(string) string) (string, error) {
	switch {
	case mode == "":
		return "", nil
	case typ != "Lakehouse":
		return "", fabricerr.BadParameter(field("schemaMode"), "only a Lakehouse destination has a schema mode, not a %s destination", typ)
	case strings.EqualFold(mode, eventstream.SchemaEnforce):
		return eventstream.SchemaEnforce, nil
	case strings.EqualFold(mode, eventstream.SchemaEvolve):
		return eventstream.SchemaEvolve, nil
	}
	return "", fabricerr.BadParameter(field("schemaMode"), "%q is not enforce or evolve", mode)
}

// policyOf is spec's settings as a definition's resolver returns them.
func policyOf(spec eventstream.Spec) definition.Policy {
	return definition.Policy{ErrorPolicy: spec.ErrorPolicy, DeadLetterTopic: spec.DeadLetterTopic, SchemaMode: spec.SchemaMode}
}

package gateway

import (
	"encoding/binary"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// offered maps every API key an authenticated client may use to the highest
// version the gateway lets through (further capped by what kmsg parses and
// what the upstream supports).
var offered = map[int16]int16{
	int16(kmsg.Produce):              9,  // v10+ name brokers in leader hints, v13+ topics by id
	int16(kmsg.Fetch):                15, // v16+ name brokers in leader hints
	int16(kmsg.ListOffsets):          maxKnown,
	int16(kmsg.Metadata):             maxKnown,
	int16(kmsg.OffsetCommit):         9, // v10+ topics by id
	int16(kmsg.OffsetFetch):          9, // v10+ topics by id
	int16(kmsg.FindCoordinator):      maxKnown,
	int16(kmsg.JoinGroup):            maxKnown,
	int16(kmsg.Heartbeat):            maxKnown,
	int16(kmsg.LeaveGroup):           maxKnown,
	int16(kmsg.SyncGroup):            maxKnown,
	int16(kmsg.DescribeGroups):       maxKnown,
	int16(kmsg.ApiVersions):          maxKnown,
	int16(kmsg.InitProducerID):       maxKnown,
	int16(kmsg.OffsetForLeaderEpoch): maxKnown,
}

const maxKnown = 1<<15 - 1

// offeredMax returns the highest version of key the gateway handles, or -1.
func offeredMax(key int16) int16 {
	c, ok := offered[key]
	if !ok {
		return -1
	}
	return min(c, kmsg.RequestForKey(key).MaxVersion())
}

// saslVersions are answered by the gateway itself.
var saslVersions = []kmsg.ApiVersionsResponseApiKey{
	{ApiKey: int16(kmsg.SASLHandshake), MinVersion: 0, MaxVersion: 1},
	{ApiKey: int16(kmsg.SASLAuthenticate), MinVersion: 0, MaxVersion: 2},
}

// apiVersions forwards ApiVersions and trims the answer to what the gateway
// offers, adding the SASL APIs it answers itself.
func (s *session) apiVersions(r *request) action {
	top := r.msg.MaxVersion()
	if r.version > top {
		// What a broker does with a version it does not know: a v0
		// answer with UNSUPPORTED_VERSION and the versions it does.
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.SetVersion(0)
		resp.ErrorCode = kerr.UnsupportedVersion.Code
		resp.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: int16(kmsg.ApiVersions), MaxVersion: top}}
		return action{local: resp}
	}
	return action{forward: true, fix: func(body []byte) ([]byte, error) {
		if len(body) >= 2 && int16(binary.BigEndian.Uint16(body)) == kerr.UnsupportedVersion.Code {
			// The upstream does not know this ApiVersions version (Apache
			// Kafka 3.9 stops at v4): its v0 answer names the version to
			// retry with (KIP-511), and clients only read it that way when
			// ApiVersions is the one key listed. Pass it on untouched.
			return body, nil
		}
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.SetVersion(r.version)
		if err := resp.ReadFrom(body); err != nil {
			return nil, err
		}
		resp.ApiKeys = capVersions(resp.ApiKeys)
		return resp.AppendTo(nil), nil
	}}
}

// capVersions keeps the keys the gateway offers, at versions it handles.
func capVersions(keys []kmsg.ApiVersionsResponseApiKey) []kmsg.ApiVersionsResponseApiKey {
	out := make([]kmsg.ApiVersionsResponseApiKey, 0, len(offered)+len(saslVersions))
	for _, k := range keys {
		top := offeredMax(k.ApiKey)
		if top < 0 {
			continue
		}
		k.MaxVersion = min(k.MaxVersion, top)
		if k.MinVersion > k.MaxVersion {
			continue
		}
		out = append(out, k)
	}
	out = append(out, saslVersions...)
	slices.SortFunc(out, func(a, b kmsg.ApiVersionsResponseApiKey) int { return int(a.ApiKey) - int(b.ApiKey) })
	return out
}

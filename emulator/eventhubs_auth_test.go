package emulator_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabrictest/fabrictest/emulator"
	"github.com/fabrictest/fabrictest/emulator/internal/amqp/eventhubs"
)

// connField is one field of a connection string.
func connField(conn, name string) string {
	for _, p := range strings.Split(conn, ";") {
		if k, v, ok := strings.Cut(p, "="); ok && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// TestEventHubsAuthorizeSAS: the door's SAS check signs with the primary
// or secondary key of the token's key name, refuses expired and forged
// tokens, tokens for another event hub or that do not cover the audience;
// SASL PLAIN takes the connection string as on the Kafka endpoint; an
// Entra token for another audience is refused naming the one wanted.
func TestEventHubsAuthorizeSAS(t *testing.T) {
	f := deployEndpoint(t)
	srv := f.e.srv
	c := f.connection("GET", "/sources/"+f.src+"/connection", nil)
	d := f.connection("GET", "/destinations/"+f.out+"/connection", nil)
	name, hub := connField(c.AccessKeys.PrimaryConnectionString, "SharedAccessKeyName"), c.EventHubName
	hour := time.Now().Add(time.Hour)
	sas := func(resource, keyName, key string, exp time.Time) string {
		return eventhubs.SignSAS(resource, keyName, key, exp)
	}
	auth := func(typ, token, audience string) (eventhubs.Grant, error) {
		return emulator.AuthorizeEventHubs(srv, eventhubs.Credential{Type: typ, Token: token, Audience: audience})
	}
	aud := "amqp://127.0.0.1/" + hub
	for what, tc := range map[string]struct {
		token, audience, keyID string
		send                   bool
	}{
		"primary":        {sas("sb://127.0.0.1/"+hub, name, c.AccessKeys.PrimaryKey, hour), aud, f.src + "/PrimaryKey", true},
		"secondary":      {sas("sb://any.host/"+hub, name, c.AccessKeys.SecondaryKey, hour), aud + "/Partitions/0", f.src + "/SecondaryKey", true},
		"namespace root": {sas("sb://127.0.0.1/", name, c.AccessKeys.PrimaryKey, hour), aud, f.src + "/PrimaryKey", true},
		"destination": {sas("sb://127.0.0.1/"+hub, connField(d.AccessKeys.PrimaryConnectionString, "SharedAccessKeyName"), d.AccessKeys.PrimaryKey, hour),
			aud + "/ConsumerGroups/$Default/Partitions/1", f.out + "/PrimaryKey", false},
	} {
		g, err := auth(eventhubs.TokenSAS, tc.token, tc.audience)
		if err != nil || g.Entity != hub || g.KeyID != tc.keyID || g.Send != tc.send || g.Listen == tc.send || g.Expires.Unix() != hour.Unix() {
			t.Errorf("%s: grant %+v, %v", what, g, err)
		}
	}
	for what, tc := range map[string]struct{ token, audience, want string }{
		"expired":        {sas("sb://127.0.0.1/"+hub, name, c.AccessKeys.PrimaryKey, time.Now().Add(-time.Minute)), aud, "expired"},
		"forged":         {sas("sb://127.0.0.1/"+hub, name, "bm90IHRoZSBrZXk=", hour), aud, "regenerated"},
		"unknown name":   {sas("sb://127.0.0.1/"+hub, "key_00000000", c.AccessKeys.PrimaryKey, hour), aud, "key_00000000"},
		"other hub":      {sas("sb://127.0.0.1/other.hub", name, c.AccessKeys.PrimaryKey, hour), "amqp://127.0.0.1/other.hub", "not the event hub"},
		"not covered":    {sas("sb://127.0.0.1/"+hub+"/Partitions/0", name, c.AccessKeys.PrimaryKey, hour), aud + "/Partitions/1", "does not cover"},
		"not a SAS":      {"Bearer x", aud, "SharedAccessSignature"},
		"tampered claim": {strings.Replace(sas("sb://127.0.0.1/"+hub, name, c.AccessKeys.PrimaryKey, hour), "&se=", "&se=1", 1), aud, "signature"},
	} {
		_, err := auth(eventhubs.TokenSAS, tc.token, tc.audience)
		if !errors.Is(err, eventhubs.ErrUnauthorized) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrUnauthorized naming %q", what, err, tc.want)
		}
	}

	g, err := emulator.AuthorizeEventHubs(srv, eventhubs.Credential{Type: eventhubs.TokenSASLPlain, KeyName: "$ConnectionString", Token: c.AccessKeys.PrimaryConnectionString})
	if err != nil || g.Entity != hub || !g.Send || !g.Expires.IsZero() {
		t.Errorf("SASL PLAIN: %+v, %v", g, err)
	}
	if _, err := emulator.AuthorizeEventHubs(srv, eventhubs.Credential{Type: eventhubs.TokenSASLPlain, KeyName: name, Token: c.AccessKeys.PrimaryKey}); !errors.Is(err, eventhubs.ErrUnauthorized) {
		t.Errorf("SASL PLAIN with the key name as user: %v", err)
	}
	if _, err := auth(eventhubs.TokenJWT, f.e.token, aud); !errors.Is(err, eventhubs.ErrUnauthorized) || !strings.Contains(err.Error(), "https://eventhubs.azure.net") {
		t.Errorf("a Fabric-audience token: %v, want a refusal naming the Event Hubs audience", err)
	}
}

package fakediscord_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// TestApplicationMe: GET /applications/@me answers the token's
// application, with its public key as verify_key, and refuses a wrong token.
func TestApplicationMe(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t, fakediscord.Options{AppID: "42", BotName: "tic"})
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	body, err := ses.RequestWithBucketID(http.MethodGet, discordgo.EndpointApplication("@me"), nil, discordgo.EndpointApplication(""))
	if err != nil {
		t.Fatal(err)
	}
	var app discordgo.Application
	if err := json.Unmarshal(body, &app); err != nil {
		t.Fatal(err)
	}
	if app.ID != "42" || app.Name != "tic" || app.VerifyKey != srv.PublicKeyHex() {
		t.Fatalf("application %+v, want ID 42, name tic, verify_key %s", app, srv.PublicKeyHex())
	}

	wrong, err := discordgo.New("Bot not-the-token")
	if err != nil {
		t.Fatal(err)
	}
	wrong.Client = srv.Client()
	_, err = wrong.RequestWithBucketID(http.MethodGet, discordgo.EndpointApplication("@me"), nil, discordgo.EndpointApplication(""))
	if status, code := restCode(t, err); status != http.StatusUnauthorized || code != fakediscord.CodeUnauthorized {
		t.Fatalf("wrong token: %d %d, want 401 %d", status, code, fakediscord.CodeUnauthorized)
	}
}

// TestUnreachable: while the fake is unreachable requests fail without an
// HTTP answer, and nothing is recorded; afterwards they work again.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t, fakediscord.Options{})
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	srv.SetUnreachable(true)
	if _, err := ses.User("@me"); err == nil {
		t.Fatal("GET /users/@me succeeded on an unreachable fake")
	} else if re := (*discordgo.RESTError)(nil); errors.As(err, &re) {
		t.Fatalf("got an HTTP answer (%d), want a broken connection", re.Response.StatusCode)
	}
	if err := ses.Open(); err == nil {
		_ = ses.Close()
		t.Fatal("the gateway opened on an unreachable fake")
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Fatalf("calls recorded while unreachable: %+v", calls)
	}
	srv.SetUnreachable(false)
	if u, err := ses.User("@me"); err != nil || u.ID != srv.AppID() {
		t.Fatalf("after recovery: %+v, %v", u, err)
	}
}

// TestFailIdentify: with FailIdentify(4004) the gateway closes with 4004
// after IDENTIFY, as for a reset token; with 0 it identifies again.
func TestFailIdentify(t *testing.T) {
	t.Parallel()
	srv := fakediscord.New(t, fakediscord.Options{})
	srv.FailIdentify(4004)
	ses, err := srv.Session()
	if err != nil {
		t.Fatal(err)
	}
	err = ses.Open()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 4004 || ce.Text != "Authentication failed." {
		t.Fatalf("Open: %v, want close 4004 Authentication failed.", err)
	}
	if g := srv.GatewayState(); g.Identifies != 0 {
		t.Fatalf("%d identifies counted, want 0", g.Identifies)
	}
	srv.FailIdentify(0)
	connect(t, srv)
}

package bot

import (
	"context"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// TestModerator checks who may use /ttt-admin at run time: Manage Server
// or Administrator, or one of the server's moderator roles (by default
// Options.AdminRoles); nobody outside a server.
func TestModerator(t *testing.T) {
	b := &Bot{lc: newLifecycle(Options{AdminRoles: []string{"mods"}}), now: time.Now, cat: testCatalog(t)}
	// Server 42 set nothing; server 43 set its own moderator roles.
	custom := b.defaultSettings()
	custom.AdminRoles = []string{"helpers"}
	b.settingsCache.m = map[string]cachedSettings{"42": {s: b.defaultSettings(), at: time.Now()}, "43": {s: custom, at: time.Now()}}
	member := func(perms int64, roles ...string) *discordgo.Member {
		return &discordgo.Member{User: &discordgo.User{ID: "1"}, Permissions: perms, Roles: roles}
	}
	for _, tc := range []struct {
		name  string
		guild string
		m     *discordgo.Member
		want  bool
	}{
		{"manage server", "42", member(discordgo.PermissionManageGuild), true},
		{"administrator", "42", member(discordgo.PermissionAdministrator), true},
		{"moderator role", "42", member(0, "players", "mods"), true},
		{"plain member", "42", member(discordgo.PermissionSendMessages, "players"), false},
		{"direct message", "", nil, false},
		{"server's own role", "43", member(0, "helpers"), true},
		{"default role replaced by the server's", "43", member(0, "mods"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &call{i: &discordgo.Interaction{GuildID: tc.guild, Member: tc.m}}
			if got := b.moderator(context.Background(), c); got != tc.want {
				t.Errorf("moderator = %v, want %v", got, tc.want)
			}
		})
	}
}

package bot

import (
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestModerator checks who may use /ttt-admin at run time: Manage Server
// or Administrator, or one of Options.AdminRoles; nobody outside a server.
func TestModerator(t *testing.T) {
	b := &Bot{lc: newLifecycle(Options{AdminRoles: []string{"mods"}})}
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := b.moderator(&discordgo.Interaction{GuildID: tc.guild, Member: tc.m}); got != tc.want {
				t.Errorf("moderator = %v, want %v", got, tc.want)
			}
		})
	}
}

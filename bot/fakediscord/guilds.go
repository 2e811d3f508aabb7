package fakediscord

import (
	"net/http"
	"slices"

	"github.com/bwmarrin/discordgo"
)

// SetGuildChannels declares text channels of a guild, which GET
// /guilds/{guild}/channels lists with the channels the guild's
// interactions and messages have used.
func (s *Server) SetGuildChannels(guildID string, channelIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.guildChannels == nil {
		s.guildChannels = map[string][]string{}
	}
	for _, id := range channelIDs {
		if !slices.Contains(s.guildChannels[guildID], id) {
			s.guildChannels[guildID] = append(s.guildChannels[guildID], id)
		}
		s.channelGuild[id] = guildID
	}
}

// SetGuildRoles declares the roles of a guild, which GET
// /guilds/{guild}/roles lists after @everyone (whose ID is the guild's).
func (s *Server) SetGuildRoles(guildID string, roleIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.guildRoles == nil {
		s.guildRoles = map[string][]string{}
	}
	s.guildRoles[guildID] = append([]string(nil), roleIDs...)
}

// restGuildChannels is GET /guilds/{guild}/channels.
func (s *Server) restGuildChannels(r *http.Request, _ []byte) (int, any, *apiError) {
	guild := r.PathValue("guild")
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for ch, g := range s.channelGuild {
		if g == guild {
			ids = append(ids, ch)
		}
	}
	slices.Sort(ids)
	out := make([]map[string]any, 0, len(ids))
	for i, id := range ids {
		out = append(out, map[string]any{"id": id, "type": discordgo.ChannelTypeGuildText, "guild_id": guild,
			"name": "channel-" + id, "position": i, "permission_overwrites": []any{}})
	}
	return http.StatusOK, out, nil
}

// restGuildRoles is GET /guilds/{guild}/roles.
func (s *Server) restGuildRoles(r *http.Request, _ []byte) (int, any, *apiError) {
	guild := r.PathValue("guild")
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []map[string]any{{"id": guild, "name": "@everyone", "position": 0, "permissions": "0"}}
	for i, id := range s.guildRoles[guild] {
		out = append(out, map[string]any{"id": id, "name": "role-" + id, "position": i + 1, "permissions": "0"})
	}
	return http.StatusOK, out, nil
}

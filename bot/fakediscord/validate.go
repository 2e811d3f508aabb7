package fakediscord

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Discord JSON error codes the fake returns.
const (
	CodeUnknownMessage       = 10008
	CodeUnknownWebhook       = 10015
	CodeUnknownInteraction   = 10062
	CodeUnknownCommand       = 10063
	CodeInvalidWebhookToken  = 50027
	CodeEmptyMessage         = 50006
	CodeInvalidFormBody      = 50035
	CodeInvalidJSON          = 50109
	CodeAlreadyAcknowledged  = 40060
	CodeUnauthorized         = 0
	maxContent               = 2000
	maxRows                  = 5
	maxRowButtons            = 5
	maxCustomID              = 100
	maxLabel                 = 80
	maxEmbeds                = 10
	maxChoices               = 25
	maxModalTitle            = 45
	maxCommands              = 100
	maxCommandDescription    = 100
	maxCommandName           = 32
	maxCommandOptions        = 25
	componentActionRow       = 1
	componentButton          = 2
	componentTextInput       = 4
	buttonStyleLink          = 5
	buttonStylePremium       = 6
	allowedMessageFlags      = FlagSuppressEmbeds | FlagEphemeral | FlagSuppressNotify
	allowedChannelEditFlags  = FlagSuppressEmbeds
	messageTooLongMessage    = "Must be 2000 or fewer in length."
	invalidFormBodyMessage   = "Invalid Form Body"
	alreadyAcknowledgedError = "Interaction has already been acknowledged."
)

// apiError is an error answer in Discord's JSON shape.
type apiError struct {
	Status  int            `json:"-"`
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Errors  map[string]any `json:"errors,omitempty"`
}

func (e *apiError) Error() string {
	if len(e.Errors) > 0 { // which field, as Discord says it
		if b, err := json.Marshal(e.Errors); err == nil {
			return fmt.Sprintf("%d %s (%d): %s", e.Status, e.Message, e.Code, b)
		}
	}
	return fmt.Sprintf("%d %s (%d)", e.Status, e.Message, e.Code)
}

func errUnknownInteraction() *apiError {
	return &apiError{Status: http.StatusNotFound, Code: CodeUnknownInteraction, Message: "Unknown interaction"}
}

func errUnknownMessage() *apiError {
	return &apiError{Status: http.StatusNotFound, Code: CodeUnknownMessage, Message: "Unknown Message"}
}

func errUnknownWebhook() *apiError {
	return &apiError{Status: http.StatusNotFound, Code: CodeUnknownWebhook, Message: "Unknown Webhook"}
}

func errInvalidJSON() *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: "The request body contains invalid JSON."}
}

// formError builds a 400 Invalid Form Body error at a dotted field path, the
// way Discord nests them: {"errors": {"a": {"0": {"_errors": [...]}}}}.
func formError(path, code, msg string) *apiError {
	leaf := map[string]any{"_errors": []any{map[string]any{"code": code, "message": msg}}}
	parts := strings.Split(path, ".")
	for i := len(parts) - 1; i >= 1; i-- {
		leaf = map[string]any{parts[i]: leaf}
	}
	return &apiError{Status: http.StatusBadRequest, Code: CodeInvalidFormBody, Message: invalidFormBodyMessage,
		Errors: map[string]any{parts[0]: leaf}}
}

// messagePayload is the body of a message create or edit (also the data of
// interaction callbacks 4 and 7, and of webhook executes and edits).
type messagePayload struct {
	Content    *string          `json:"content"`
	Components *json.RawMessage `json:"components"`
	Embeds     *json.RawMessage `json:"embeds"`
	Flags      *int             `json:"flags"`
	// AllowedMentions says whom the message may ping.
	AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
	// Attachments lists the attachments an edit keeps (and describes new
	// uploads); see keptAttachments.
	Attachments *json.RawMessage `json:"attachments"`
	// Nonce and EnforceNonce make a channel post idempotent: a second
	// post with the same nonce in the channel within a few minutes
	// returns the first message.
	Nonce        string `json:"nonce"`
	EnforceNonce bool   `json:"enforce_nonce"`
	// files is the number of files uploaded with the payload (multipart).
	files int
	// Modal and autocomplete callback fields.
	CustomID string            `json:"custom_id"`
	Title    string            `json:"title"`
	Choices  []json.RawMessage `json:"choices"`
}

func (p *messagePayload) hasContent() bool {
	return (p.Content != nil && *p.Content != "") || nonEmptyArray(p.Components) || nonEmptyArray(p.Embeds) || p.files > 0
}

func nonEmptyArray(r *json.RawMessage) bool {
	if r == nil {
		return false
	}
	var a []json.RawMessage
	return json.Unmarshal(*r, &a) == nil && len(a) > 0
}

// validateMessage checks a message payload against Discord's limits. create
// is true for new messages, which must not be empty.
func validateMessage(p *messagePayload, create bool) *apiError {
	if p.Content != nil && utf8.RuneCountInString(*p.Content) > maxContent {
		return formError("content", "BASE_TYPE_MAX_LENGTH", messageTooLongMessage)
	}
	if p.Embeds != nil && string(*p.Embeds) != "null" {
		var embeds []json.RawMessage
		if err := json.Unmarshal(*p.Embeds, &embeds); err != nil {
			return formError("embeds", "MODEL_TYPE_CONVERT", "Only iterables may be used in a ListType")
		}
		if len(embeds) > maxEmbeds {
			return formError("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
		}
	}
	if p.Components != nil && string(*p.Components) != "null" {
		if e := validateRows(*p.Components, componentButton); e != nil {
			return e
		}
	}
	if p.Attachments != nil && string(*p.Attachments) != "null" {
		var list []struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(*p.Attachments, &list); err != nil {
			return formError("attachments", "MODEL_TYPE_CONVERT", "Only iterables may be used in a ListType")
		}
	}
	if p.Flags != nil && *p.Flags&^(allowedMessageFlags) != 0 {
		return formError("flags", "MESSAGE_FLAGS_INVALID", "Invalid flags")
	}
	if create && !p.hasContent() {
		return &apiError{Status: http.StatusBadRequest, Code: CodeEmptyMessage, Message: "Cannot send an empty message"}
	}
	return nil
}

// validateRows checks a components array: at most 5 action rows, each with
// at most 5 buttons or one other component, custom IDs present, unique and at
// most 100 characters. leaf is the component family expected (buttons for
// messages, text inputs for modals).
func validateRows(raw json.RawMessage, leaf int) *apiError {
	var rows []wireComponent
	if err := json.Unmarshal(raw, &rows); err != nil {
		return formError("components", "MODEL_TYPE_CONVERT", "Only iterables may be used in a ListType")
	}
	if len(rows) > maxRows {
		return formError("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
	}
	seen := map[string]bool{}
	for i, row := range rows {
		at := "components." + strconv.Itoa(i)
		if row.Type != componentActionRow {
			return formError(at+".type", "UNION_TYPE_CHOICES", "Value of field \"type\" must be one of (1,).")
		}
		if len(row.Components) == 0 {
			return formError(at+".components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
		}
		if len(row.Components) > maxRowButtons {
			return formError(at+".components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
		}
		for j, c := range row.Components {
			cat := at + ".components." + strconv.Itoa(j)
			if e := validateComponent(c, cat, leaf, len(row.Components)); e != nil {
				return e
			}
			if c.CustomID != "" {
				if seen[c.CustomID] {
					return formError(cat+".custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
				}
				seen[c.CustomID] = true
			}
		}
	}
	return nil
}

func validateComponent(c wireComponent, at string, leaf, siblings int) *apiError {
	if utf8.RuneCountInString(c.CustomID) > maxCustomID {
		return formError(at+".custom_id", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
	}
	switch {
	case c.Type == componentButton && leaf == componentButton:
		if utf8.RuneCountInString(c.Label) > maxLabel {
			return formError(at+".label", "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length.")
		}
		if c.Style < 1 || c.Style > buttonStylePremium {
			return formError(at+".style", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6}.")
		}
		if c.Style == buttonStyleLink {
			if c.URL == "" || c.CustomID != "" {
				return formError(at+".url", "BUTTON_COMPONENT_URL_REQUIRED", "A url is required")
			}
		} else if c.CustomID == "" && c.Style != buttonStylePremium {
			return formError(at+".custom_id", "BUTTON_COMPONENT_CUSTOM_ID_REQUIRED", "A custom id is required")
		}
		if c.Label == "" && c.Emoji == nil && c.Style != buttonStylePremium {
			return formError(at, "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A label or emoji is required")
		}
	case c.Type >= 3 && c.Type <= 8 && c.Type != componentTextInput && leaf == componentButton:
		if siblings != 1 {
			return formError(at, "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "The specified component exceeds the maximum width")
		}
		if c.CustomID == "" {
			return formError(at+".custom_id", "BASE_TYPE_REQUIRED", "This field is required")
		}
	case c.Type == componentTextInput && leaf == componentTextInput:
		if siblings != 1 {
			return formError(at, "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "The specified component exceeds the maximum width")
		}
		if c.CustomID == "" || c.Label == "" {
			return formError(at+".custom_id", "BASE_TYPE_REQUIRED", "This field is required")
		}
	default:
		return formError(at+".type", "COMPONENT_TYPE_INVALID", "Invalid component type "+strconv.Itoa(c.Type)+" here")
	}
	return nil
}

package main

import (
	"bufio"
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageGraph enforces the import rules of the README's Layout with go list:
// game imports only the standard library; ai imports game (and its own
// subpackages); persistence imports game and third-party code; nothing
// imports bot except cmd/bot, and nothing imports cmd/bot (no package
// under bot/ imports bot); tournament, sched and chart use the standard
// library only; retrain and bot/shards reach persistence but not bot or
// discordgo; nothing outside bot/ and cmd/ imports discordgo. A tree named
// here that does not exist fails: the layout is the rule.
func TestPackageGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	mod := strings.TrimSpace(string(out))

	// Each rule: a package tree and the trees of this module it may reach.
	// nil third-party means only the standard library besides those trees.
	rules := []struct {
		tree       string
		may        []string
		thirdParty bool
		forbid     []string // third-party packages it may not reach even so
	}{
		{tree: "game"},
		// Boards past 8x8: game's marks, results and errors, nothing more.
		{tree: "game/wide", may: []string{"game"}},
		{tree: "ai", may: []string{"game"}},
		{tree: "ai/gomoku", may: []string{"game"}},
		// The certificate checker shares nothing with the search.
		{tree: "ai/proof", may: []string{"game"}},
		{tree: "persistence", may: []string{"game"}, thirdParty: true, forbid: []string{"github.com/bwmarrin/discordgo"}},
		{tree: "weights"},
		{tree: "internal"}, // test support (golden files): the standard library only
		{tree: "tournament"},
		{tree: "sched"},
		{tree: "chart"},
		// The retrain job and the model watcher: training, the registry
		// and the AI queue, never Discord.
		{tree: "retrain", may: []string{"ai", "game", "persistence", "sched", "chart"}, thirdParty: true, forbid: []string{"github.com/bwmarrin/discordgo"}},
		// Signed custom IDs: game IDs and cells, no Discord.
		{tree: "bot/customid", may: []string{"game", "persistence"}, thirdParty: true, forbid: []string{"github.com/bwmarrin/discordgo"}},
		// The catalogs: texts, plural rules, the error type with a key.
		// discordgo only for its Locale type.
		{tree: "bot/i18n", thirdParty: true},
		// A server's settings as data: names, values, parse and show.
		{tree: "bot/settings", may: []string{"game", "persistence", "bot/customid", "bot/i18n"}, thirdParty: true},
		// The slash commands: definitions, limits, options into requests.
		{tree: "bot/command", may: []string{"game", "persistence", "bot/customid", "bot/i18n", "bot/settings"}, thirdParty: true},
		// A tournament's life as steps over its stored record: no I/O.
		{tree: "bot/tourney", may: []string{"game", "persistence", "tournament", "bot/customid", "bot/i18n", "bot/settings", "bot/command"}, thirdParty: true},
		// Every message builder: (data, locale) -> Discord payload, no I/O.
		{tree: "bot/render", may: []string{"game", "ai", "persistence", "tournament", "chart", "sched", "retrain",
			"bot/customid", "bot/i18n", "bot/settings", "bot/command", "bot/tourney"}, thirdParty: true},
		// The bot's metrics on the Prometheus client.
		{tree: "bot/metrics", may: []string{"ai", "game", "sched"}, thirdParty: true},
		// Discord's REST API as the bot writes to it: retries, nonces.
		{tree: "bot/rest", may: []string{"bot/httpmode"}, thirdParty: true},
		// The interactions endpoint: a small Handler interface, no bot.
		{tree: "bot/httpmode", thirdParty: true},
		{tree: "bot/gateway", thirdParty: true}, // discordgo and gorilla/websocket, never bot
		// bot/shards knows Redis through persistence, never Discord.
		{tree: "bot/shards", may: []string{"persistence", "game"}, thirdParty: true, forbid: []string{"github.com/bwmarrin/discordgo"}},
	}
	for _, r := range rules {
		t.Run(r.tree, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join("../..", r.tree)); errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s does not exist: the README's Layout names it", r.tree)
			}
			cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "./"+r.tree+"/...")
			cmd.Dir = "../.."
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list %s: %v\n%s", r.tree, err, stderr.String())
			}
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				path, std, _ := strings.Cut(sc.Text(), " ")
				if std == "true" {
					continue
				}
				rel, ours := strings.CutPrefix(path, mod+"/")
				if !ours {
					if withinAny(path, r.forbid) {
						t.Errorf("%s depends on %s, which the README's rules forbid it", r.tree, path)
					}
					if !r.thirdParty {
						t.Errorf("%s depends on %s; the README's rules allow it the standard library only", r.tree, path)
					}
					continue
				}
				if !within(rel, r.tree) && !withinAny(rel, r.may) {
					t.Errorf("%s depends on %s; the README's rules allow it only %v", r.tree, rel, append([]string{r.tree}, r.may...))
				}
			}
		})
	}

	t.Run("nothing imports bot or cmd", func(t *testing.T) {
		cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
		cmd.Dir = "../.."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			importer := strings.TrimPrefix(f[0], mod+"/")
			for _, imp := range f[1:] {
				rel, ours := strings.CutPrefix(imp, mod+"/")
				if !ours {
					continue
				}
				if within(rel, "cmd") || (rel == "bot" && importer != "cmd/bot") || (within(rel, "bot") && !within(importer, "cmd/bot") && !within(importer, "bot")) {
					t.Errorf("%s imports %s; nothing may import cmd/, and only cmd/bot may import bot (no package under bot/ either)", importer, rel)
				}
			}
			for _, imp := range f[1:] {
				if within(imp, "github.com/bwmarrin/discordgo") && !within(importer, "bot") && !within(importer, "cmd") {
					t.Errorf("%s imports discordgo; only bot/ and cmd/ may", importer)
				}
			}
		}
	})
}

func within(pkg, tree string) bool { return pkg == tree || strings.HasPrefix(pkg, tree+"/") }

func withinAny(pkg string, trees []string) bool {
	for _, t := range trees {
		if within(pkg, t) {
			return true
		}
	}
	return false
}

// TestAdapterLayout holds bot/ to being the Discord adapter only: every
// source file there has a method of *Bot or registers a route (the
// package's doc.go aside); anything else belongs in a package of its own.
// The adapter stays at most 7,500 lines, and no file over 500.
func TestAdapterLayout(t *testing.T) {
	const maxFile, maxTotal = 500, 7500
	files, err := filepath.Glob("../../bot/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	total := 0
	for _, path := range files {
		name := filepath.Base(path)
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(src, []byte("\n"))
		total += lines
		if lines > maxFile {
			t.Errorf("bot/%s has %d lines; a file of the adapter has at most %d", name, lines, maxFile)
		}
		if name == "doc.go" {
			continue
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !adapterFile(f) {
			t.Errorf("bot/%s has no method of *Bot and registers no route: it belongs in a package of its own", name)
		}
	}
	if total > maxTotal {
		t.Errorf("bot/ has %d lines of source; the adapter has at most %d", total, maxTotal)
	}
}

// adapterFile reports whether f declares a method of *Bot or calls
// routeCommand or routeComponent.
func adapterFile(f *ast.File) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Recv != nil && len(n.Recv.List) == 1 {
				if star, ok := n.Recv.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok && id.Name == "Bot" {
						found = true
					}
				}
			}
		case *ast.CallExpr:
			fn := n.Fun
			if ix, ok := fn.(*ast.IndexExpr); ok { // routeCommand[R]
				fn = ix.X
			}
			if id, ok := fn.(*ast.Ident); ok && (id.Name == "routeCommand" || id.Name == "routeComponent") {
				found = true
			}
		}
		return !found
	})
	return found
}

package fs

import (
	"steward/backend/tool"
	"steward/backend/workspace"
)

// The touches of each tool (tool.Toucher) are the paths its body opens,
// found the way the body finds them: workspace.Resolve for a path argument,
// globBase for glob, parsePatch and patchTarget for a patch. The
// permission policy decides on them, so a rule holds for the file itself
// whatever the call calls it.

func readTouches(env tool.Env, a readArgs) []tool.Touch {
	return touchOf(env, a.Path, tool.AccessRead)
}

func listTouches(env tool.Env, a listArgs) []tool.Touch {
	return touchOf(env, orRoot(a.Path), tool.AccessRead)
}

func globTouches(env tool.Env, a globArgs) []tool.Touch {
	base, _ := globBase(a)
	return touchOf(env, base, tool.AccessRead)
}

func grepTouches(env tool.Env, a grepArgs) []tool.Touch {
	return touchOf(env, orRoot(a.Path), tool.AccessRead)
}

func writeTouches(env tool.Env, a writeArgs) []tool.Touch {
	return touchOf(env, a.Path, tool.AccessWrite)
}

func editTouches(env tool.Env, a editArgs) []tool.Touch {
	return touchOf(env, a.Path, tool.AccessWrite)
}

// patchTouches are the files apply_patch would change: every section of
// the patch as parsePatch reads it (quoted names unquoted, git headers
// without ---/+++ lines included), each at patchTarget. A patch that does
// not parse touches nothing: apply_patch refuses it.
func patchTouches(env tool.Env, a patchArgs) []tool.Touch {
	files, err := parsePatch(a.Patch)
	if err != nil {
		return nil
	}
	ws, err := workspace.Open(env.Workspace)
	if err != nil {
		return nil
	}
	root, err := ws.OpenRoot()
	if err != nil {
		return nil
	}
	defer root.Close()
	var out []tool.Touch
	seen := map[string]bool{}
	for _, f := range files {
		for _, t := range touchIn(ws, patchTarget(root, f), tool.AccessWrite) {
			if !seen[t.Path] {
				seen[t.Path] = true
				out = append(out, t)
			}
		}
	}
	return out
}

func orRoot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// touchOf is touchIn in the workspace of env.
func touchOf(env tool.Env, p string, access tool.Access) []tool.Touch {
	ws, err := workspace.Open(env.Workspace)
	if err != nil {
		return nil
	}
	return touchIn(ws, p, access)
}

// touchIn returns the touch of p: the file Resolve finds, and the name p
// gives it when that is another. Nothing when Resolve refuses p: the tool
// refuses it too.
func touchIn(ws *workspace.Root, p string, access tool.Access) []tool.Touch {
	abs, err := ws.Resolve(p)
	if err != nil {
		return nil
	}
	rel, err := ws.Rel(abs)
	if err != nil {
		return nil
	}
	t := tool.Touch{Path: rel, Access: access}
	if via, ok := ws.Spelled(p); ok && via != rel {
		t.Via = via
	}
	return []tool.Touch{t}
}

// hidden reports whether the run may not see the workspace path rel in a
// listing (tool.Env.Withheld); a symlink counts by its target too.
func (c call) hidden(rel string, link bool) bool {
	if c.withheld == nil {
		return false
	}
	t := tool.Touch{Path: rel, Access: tool.AccessRead}
	if link {
		if abs, err := c.ws.Resolve(rel); err == nil {
			if target, err := c.ws.Rel(abs); err == nil && target != rel {
				t.Path, t.Via = target, rel
			}
		}
	}
	return c.withheld(t)
}

// withheldNote says how many entries a listing left out by a rule; "" for
// none. It names no entry: a name can be a secret too.
func withheldNote(n int, one, many string) string {
	if n == 0 {
		return ""
	}
	return "(" + count(int64(n), one, many) + " withheld by a rule)\n"
}

// build-context lists the files `docker build` sends as the build context of a folder: every file
// under it that the folder's .dockerignore does not exclude, matched as Docker matches it (with
// moby/patternmatcher, the library the docker CLI and BuildKit use: `**`, `!` exceptions, the last
// matching line wins, an excluded folder's files excluded with it).
//
//	build-context [DIR]   prints the context's files, one path a line relative to DIR, sorted
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	patterns, err := readIgnoreFile(filepath.Join(dir, ".dockerignore"))
	if err != nil {
		fail(err)
	}
	matcher, err := patternmatcher.New(patterns)
	if err != nil {
		fail(err)
	}
	var files []string
	err = filepath.WalkDir(dir, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		excluded, err := matcher.MatchesOrParentMatches(rel)
		if err != nil {
			return err
		}
		if excluded {
			// An exception (`!pattern`) may take back something below an excluded folder: walk on then.
			if entry.IsDir() && !matcher.Exclusions() {
				return filepath.SkipDir
			}
			return nil
		}
		if !entry.IsDir() {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		fail(err)
	}
	sort.Strings(files)
	for _, file := range files {
		fmt.Println(file)
	}
}

func readIgnoreFile(path string) ([]string, error) {
	file, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return ignorefile.ReadAll(file)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "build-context:", err)
	os.Exit(1)
}

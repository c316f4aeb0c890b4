// SPDX-License-Identifier: GPL-2.0-or-later
// Goroutines that each sort arrays of growing size with an insertion sort,
// long enough (under Valgrind) for Go's runtime to preempt them by a signal
// (asynchronous preemption: the sort's loop makes no call where the
// goroutine could yield). Built by tests/tool/test_go.py with the Go
// toolchain of Debian's golang-go, standard library only.
//
// usage: goroutines WORKERS N1 N2 ...
//
// Each of the WORKERS goroutines fills an array of n int32 values
// (pseudo-random, its own seed) and sorts it, for each size n in turn.
// Exact by construction: insertionSort runs WORKERS times per size, and
// each run reads its n elements (n cells at --memory-resolution=4) and
// nothing else of the heap; its cost depends only on its own data, so it
// is the same whatever the scheduling. It calls no routine.
//
// Copyright (C) 2026, the aprof-trms authors.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

//go:noinline
func insertionSort(a []int32) {
	for i := 1; i < len(a); i++ {
		v := a[i]
		j := i - 1
		for j >= 0 && a[j] > v {
			a[j+1] = a[j]
			j--
		}
		a[j+1] = v
	}
}

//go:noinline
func fill(a []int32, seed uint32) {
	for i := range a {
		seed = seed*1664525 + 1013904223
		a[i] = int32(seed >> 8)
	}
}

func sortAll(worker int, sizes []int, smallest []int32) {
	for _, n := range sizes {
		a := make([]int32, n)
		fill(a, uint32(worker*7919+n))
		insertionSort(a)
		smallest[worker] += a[0]
	}
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goroutines WORKERS N1 N2 ...")
		os.Exit(2)
	}
	workers, err := strconv.Atoi(os.Args[1])
	if err != nil || workers < 1 {
		fmt.Fprintln(os.Stderr, "goroutines: bad WORKERS", os.Args[1])
		os.Exit(2)
	}
	var sizes []int
	for _, arg := range os.Args[2:] {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "goroutines: bad size", arg)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	smallest := make([]int32, workers)
	var done sync.WaitGroup
	for w := 0; w < workers; w++ {
		done.Add(1)
		go func(worker int) {
			defer done.Done()
			sortAll(worker, sizes, smallest)
		}(w)
	}
	done.Wait()
	fmt.Println("count main.insertionSort", workers*len(sizes))
}

// SPDX-License-Identifier: GPL-2.0-or-later
// Goroutines for tests/tool/test_go.py, which builds this file with the Go
// toolchain of Debian's golang-go (standard library only).
//
// usage: goroutines sort WORKERS N1 N2 ...
//        goroutines relay STAGES ROUNDS
//        goroutines grow WORKERS N1 N2 ...
//
// sort: each of the WORKERS goroutines fills an array of n int32 values
// (pseudo-random, its own seed) and sorts it with an insertion sort, for
// each size n in turn; the sorts run long enough (under Valgrind) for Go's
// runtime to preempt them by a signal (asynchronous preemption: the sort's
// loop makes no call where the goroutine could yield). Exact by
// construction: insertionSort runs WORKERS times per size, and each run
// reads its n elements (n cells at --memory-resolution=4) and nothing else
// of the heap; its cost depends only on its own data, so it is the same
// whatever the scheduling. It calls no routine.
//
// relay: STAGES goroutines in a pipeline pass ROUNDS tokens on, each stage
// in one call of relay, which blocks on every receive and send: the
// scheduler suspends its goroutine there and resumes it later, on
// whichever thread runs it next. Exact by construction: relay's own work
// (its self cost) is the same for every token, whatever the scheduling.
//
// grow: for each size n in turn, WORKERS new goroutines each fill an array
// of n int32 values and sum it with sumFrom, which recurses once per
// element: n+1 activations deep, its frames outgrow the goroutine's first
// stack (2 KiB) many times, and at each growth Go's runtime copies the
// stack to one twice as large (runtime.morestack, newstack, copystack) and
// resumes the goroutine there. Exact by construction: sumFrom runs
// WORKERS * (n+1) times per size; the activation at depth i reads the
// elements i..n-1 (n-i cells) and a few words of the stack.
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

//go:noinline
func relay(in <-chan int, out chan<- int, rounds int) {
	for i := 0; i < rounds; i++ {
		out <- (<-in) + 1
	}
}

//go:noinline
func sumFrom(a []int32, i int) int32 {
	if i == len(a) {
		return 0
	}
	return a[i] + sumFrom(a, i+1)
}

func growMain(args []string) {
	workers, sizes := workersAndSizes(args)
	sums := make([]int32, workers)
	for _, n := range sizes {
		var done sync.WaitGroup
		for w := 0; w < workers; w++ {
			done.Add(1)
			go func(worker int) {
				defer done.Done()
				a := make([]int32, n)
				fill(a, uint32(worker*7919+n))
				sums[worker] += sumFrom(a, 0)
			}(w)
		}
		done.Wait()
	}
	calls := 0
	for _, n := range sizes {
		calls += workers * (n + 1)
	}
	fmt.Println("count main.sumFrom", calls)
}

func workersAndSizes(args []string) (int, []int) {
	workers, err := strconv.Atoi(args[0])
	if err != nil || workers < 1 {
		usage("bad WORKERS " + args[0])
	}
	var sizes []int
	for _, arg := range args[1:] {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			usage("bad size " + arg)
		}
		sizes = append(sizes, n)
	}
	return workers, sizes
}

func sortMain(args []string) {
	workers, sizes := workersAndSizes(args)
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

func relayMain(stages, rounds int) {
	first := make(chan int)
	in := first
	for s := 0; s < stages; s++ {
		out := make(chan int)
		go relay(in, out, rounds)
		in = out
	}
	sum := 0
	for i := 0; i < rounds; i++ {
		first <- i
		sum += <-in
	}
	fmt.Println("relayed", sum)
}

func usage(problem string) {
	fmt.Fprintln(os.Stderr, "goroutines:", problem)
	fmt.Fprintln(os.Stderr, "usage: goroutines sort|grow WORKERS N1 N2 ... | goroutines relay STAGES ROUNDS")
	os.Exit(2)
}

func main() {
	if len(os.Args) >= 4 && os.Args[1] == "sort" {
		sortMain(os.Args[2:])
		return
	}
	if len(os.Args) >= 4 && os.Args[1] == "grow" {
		growMain(os.Args[2:])
		return
	}
	if len(os.Args) == 4 && os.Args[1] == "relay" {
		stages, err1 := strconv.Atoi(os.Args[2])
		rounds, err2 := strconv.Atoi(os.Args[3])
		if err1 != nil || err2 != nil || stages < 1 || rounds < 1 {
			usage("bad STAGES or ROUNDS")
		}
		relayMain(stages, rounds)
		return
	}
	usage("bad arguments")
}

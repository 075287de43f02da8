// Package guide is the front ends' words for the learner that come from
// the tour plan but are no part of running it: what to try once a tour is
// over (NextToTry), the page of a step whose result a lesson changes
// (LessonStepPage), what the peer must do for a wait to end
// (WhatPeerMustDo, from steps' PeerWait) and why a key does nothing
// during a wait (WaitNote).
//
// It reads steps' exported API (Config, the lesson list, PeerWait,
// StepStatus) and the docs pages; steps never imports it. It may import
// steps, docs and the standard library, nothing else of ours.
package guide

package steps

// markLessonSteps marks the steps of lesson that the lesson added to base
// or whose result it changed.
func markLessonSteps(base, lesson []Step) []Step {
	for i := range lesson {
		if lesson[i].Expect != nil || indexOf(base, lesson[i].ID) < 0 {
			lesson[i].lessonStep = true
		}
	}
	return lesson
}

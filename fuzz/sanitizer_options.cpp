// ASan's defaults, tuned for executions that each allocate a few megabytes at most. Measured on
// the Python target over 1,000 executions of the fixtures under 4 KB (fuzz/README.md):
// - quarantine: the default 256 MB holds freed memory so long that nearly every allocation
//   lands on a page never touched before, and the page faults were a fifth of the time. 16 MB
//   is still thousands of times what one input frees, so a use after free within an execution
//   is caught as before.
// - malloc_fill: ASan writes 0xbe over every new block up to 4 KB; that finds reads of
//   uninitialised memory only by luck (MSan's job), at 5% of the time.
extern "C" const char* __asan_default_options() {
  return "quarantine_size_mb=16:max_malloc_fill_size=0";
}

#include "test_harness.h"
int main(void) { return TEST_SUMMARY(); }

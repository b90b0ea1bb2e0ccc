"""Cases: the data a kernel is called with (generate), how it crosses into the job (io), how results are
judged against the reference (compare). The harness owns all of it; the suggestion never sees the reference."""

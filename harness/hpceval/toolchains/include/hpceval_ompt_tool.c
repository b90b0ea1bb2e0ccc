/* OMPT tool for the SYCL dynamic usage check (toolchains/sycl.py): loaded by LLVM's libomp through
 * OMP_TOOL_LIBRARIES, it counts the OpenMP parallel regions the process ran and the largest team that ran one.
 * AdaptiveCpp's omp backend runs every parallel_for as such a region, so a SYCL kernel that never ran in a team of
 * more than one thread did not use the SYCL runtime's parallelism. At exit it writes
 *   regions <count>\nmax_team <threads>\nteams_over_1 <count>\n
 * to $HPCEVAL_SYCL_PROBE_OUT (relative to the working directory).
 */
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>

static long hpceval_regions, hpceval_multi;
static unsigned int hpceval_max_team;

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
                             unsigned int actual_parallelism, unsigned int index, int flags) {
  (void)parallel_data;
  (void)task_data;
  if (endpoint != ompt_scope_begin || index != 0 || !(flags & ompt_task_implicit)) return;
  __atomic_fetch_add(&hpceval_regions, 1, __ATOMIC_RELAXED);
  if (actual_parallelism > 1) __atomic_fetch_add(&hpceval_multi, 1, __ATOMIC_RELAXED);
  unsigned int seen = __atomic_load_n(&hpceval_max_team, __ATOMIC_RELAXED);
  while (actual_parallelism > seen &&
         !__atomic_compare_exchange_n(&hpceval_max_team, &seen, actual_parallelism, 0, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
}

static int hpceval_initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data) {
  (void)initial_device_num;
  (void)tool_data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (set_callback) set_callback(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  return 1;
}

static void hpceval_finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  const char *path = getenv("HPCEVAL_SYCL_PROBE_OUT");
  if (!path) return;
  FILE *f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "regions %ld\nmax_team %u\nteams_over_1 %ld\n", hpceval_regions, hpceval_max_team, hpceval_multi);
  fclose(f);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  (void)omp_version;
  (void)runtime_version;
  static ompt_start_tool_result_t result = {&hpceval_initialize, &hpceval_finalize, {0}};
  return &result;
}

/* OMPT tool for the SYCL dynamic usage check (toolchains/sycl.py): loaded by LLVM's libomp through
 * OMP_TOOL_LIBRARIES, it records whether the process ran OpenMP parallel regions and the largest team that ran one.
 * AdaptiveCpp's omp backend runs every parallel_for as such a region, so a SYCL kernel that never ran in a team of
 * more than one thread did not use the SYCL runtime's parallelism.
 *
 * The harness's drivers end with exit_group (no atexit handler runs), so the record is rewritten whenever what it
 * says changes (the first region, a larger team): a handful of writes per run, none per kernel call after that.
 * Record, in $HPCEVAL_SYCL_PROBE_OUT (relative to the working directory at start-up):
 *   regions <regions seen when last written, >= 1>\nmax_team <threads>\n
 */
#include <fcntl.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long hpceval_regions;
static unsigned int hpceval_written_team;
static int hpceval_fd = -1;
static pthread_mutex_t hpceval_lock = PTHREAD_MUTEX_INITIALIZER;

static void hpceval_write(unsigned int team) {
  pthread_mutex_lock(&hpceval_lock);
  if (hpceval_fd >= 0 && (hpceval_regions == 1 || team > hpceval_written_team)) {
    if (team > hpceval_written_team) hpceval_written_team = team;
    char line[96];
    int len = snprintf(line, sizeof line, "regions %ld\nmax_team %u\n", hpceval_regions, hpceval_written_team);
    if (ftruncate(hpceval_fd, 0) == 0 && pwrite(hpceval_fd, line, (size_t)len, 0) != len) {
      /* nothing to do: no record is no evidence */
    }
  }
  pthread_mutex_unlock(&hpceval_lock);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
                             unsigned int actual_parallelism, unsigned int index, int flags) {
  (void)parallel_data;
  (void)task_data;
  if (endpoint != ompt_scope_begin || index != 0 || !(flags & ompt_task_implicit)) return;
  long regions = __atomic_add_fetch(&hpceval_regions, 1, __ATOMIC_RELAXED);
  if (regions == 1 || actual_parallelism > __atomic_load_n(&hpceval_written_team, __ATOMIC_RELAXED))
    hpceval_write(actual_parallelism);
}

static int hpceval_initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data) {
  (void)initial_device_num;
  (void)tool_data;
  const char *path = getenv("HPCEVAL_SYCL_PROBE_OUT");
  if (!path) return 0;
  hpceval_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (set_callback) set_callback(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  return 1;
}

static void hpceval_finalize(ompt_data_t *tool_data) { (void)tool_data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  (void)omp_version;
  (void)runtime_version;
  static ompt_start_tool_result_t result = {&hpceval_initialize, &hpceval_finalize, {0}};
  return &result;
}

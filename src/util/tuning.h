/* tuning.h — gs_tuning: every knob that changes how gpusvm runs (which code path, which device,
 * where kernels come from, how the process ends), never what it computes. The library reads these
 * settings from this struct only, never from the environment; the CLIs fill it once from the
 * environment (gs_tuning_from_env, src/cli/env.h), so each field names the variable it comes from.
 * gs_tuning_init's defaults mean "as without the variable". */
#ifndef GS_TUNING_H
#define GS_TUNING_H

/* A setting left to gpusvm (split, courier, profile). */
#define GS_TUNE_AUTO (-1)
/* shrink_min's default: rows from which shrinking pays for its stages' new layouts and restarts */
#define GS_SHRINK_MIN_DEFAULT 100000

/* select: which selection kernels training uses */
enum { GS_SELECT_AUTO = 0, GS_SELECT_ONE = 1, GS_SELECT_MULTI = 2 };
/* pred_blocks: how the predictor stores its SV blocks */
enum { GS_PRED_BLOCKS_AUTO = 0, GS_PRED_BLOCKS_ROWS = 1, GS_PRED_BLOCKS_DENSE = 2 };

typedef struct gs_tuning {
    /* ---- training (src/train/solver.c) ---- */
    int split;       /* GPUSVM_SPLIT=0|1: 1 splits every round into two parts (two banks of kernel
                        rows), 0 never; GS_TUNE_AUTO (default): split lone problems that fit */
    int courier;     /* GPUSVM_COURIER=0|1: split rounds enqueue their first part on a courier
                        thread (1) or not (0); GS_TUNE_AUTO (default): on a GPU with 4+ cores */
    int rowsplit;    /* GPUSVM_ROWSPLIT=0|1: with several devices, a lone problem split by rows over
                        them (1, whenever the solver can) or never (0); GS_TUNE_AUTO (default): from
                        GS_ROWSPLIT_MIN rows (src/train/run.c) */
    int select;      /* GPUSVM_SELECT=one|multi: GS_SELECT_ONE forces the one-work-group
                        selection, GS_SELECT_MULTI the multi-work-group chain; GS_SELECT_AUTO
                        (default) picks by problem size */
    int precise;     /* GPUSVM_PRECISE=0|1: the kernel rows' dot products summed in float (0) or
                        double (1) whatever the data, resumes too; GS_TUNE_AUTO (default): by a
                        float sum's error for the kernel (gs_solver_float_error): float, double
                        from the start, or float with the certification's resumes in double
                        (src/train/run.c). The certification checks the answer either way */
    int cert_wide;   /* GPUSVM_CERT_WIDE=0|1: the certification takes a row-wise cluster's SVs 64 at
                        a time (1) or 16 (0), the same sums either way (kernels/solver.cl
                        CERT_CB); GS_TUNE_AUTO (default): 64 on a GPU for data whose
                        clusters are mostly row-wise and not wide, else 16 */
    int col_rows;    /* GPUSVM_COL_ROWS=0|1: kernel rows summed by column over chunks of rows (1,
                        where the data allows: not wide, finite, float sums, not -t 4) or by row
                        (0), the same sums either way (kernels/solver.cl k_rows_col); GS_TUNE_AUTO
                        (default): by column on a GPU for data whose clusters are mostly row-wise */
    int rb_full;     /* GPUSVM_RB_FULL=0|1: the working sets' kernel matrices read back whole (1) or
                        as upper triangles the host unpacks (0), the same values either way;
                        GS_TUNE_AUTO (default): whole for batches of fewer problems than the
                        host's subproblem threads (src/train/solver.c rbfull_wanted) */
    int sub_threads; /* GPUSVM_SUB_THREADS=N (1..64): threads for a batch's subproblems, whatever
                        the host (the same answers); 0 (default): the host's CPUs, at most 16
                        (src/train/solver.c host_threads) */
    int keep_data;   /* GPUSVM_KEEP_DATA=0: every batch uploads its layout again (as before the
                        solver kept it on the device; the same answers, for the tests); GS_TUNE_AUTO
                        (default) or 1: a layout already on the device is not uploaded again */
    int inflate_threads; /* GPUSVM_INFLATE_THREADS=N: a gzip input file inflated on N threads (N >
                            0, whatever its size and the cores: tests and benchmarks) or by zlib on
                            one (-1); 0 (default): on the cores but one for 4 MiB or more with 4+
                            cores (src/io/data.h, inflate_threads) */
    long batch_mb;   /* GPUSVM_BATCH_MB=N: caps the device, pinned and host budget of one batch
                        of problems at N MB (to test several batches; gpusvm-grid's lanes share
                        the device's budget this way); 0 (default): no cap */
    int cert_resume; /* GPUSVM_CERT_RESUME=N (1..7): the first N certifications of every problem
                        resume it as if it had failed, to a tenth of eps, so the resumed rounds and
                        their incremental certification run on any data (tests); 0 (default):
                        only problems whose certified gap is at or above eps resume */
    long shrink_min; /* GPUSVM_SHRINK_MIN=N: -h 1 shrinks a lone two-class C-SVC problem of at
                        least N rows (src/train/shrink.h; N=1 on small sets in the tests), 0 never;
                        default GS_SHRINK_MIN_DEFAULT */
    long row_cache;  /* GPUSVM_ROW_CACHE=N: a lone problem on one device keeps N lines of kernel rows
                        beyond its working set's (at least 4 working sets in all), 0 none, whatever
                        the device and size (the same models); GS_TUNE_AUTO (default): on a GPU for
                        problems of 65,536 positions or more, as many as memory allows up to 32
                        working sets (src/train/solver.c row_cache_lines) */
    int cv_device;   /* GPUSVM_CV_DEVICE=0|1: -v's and -b 1's held-out rows on the device always
                        (1) or never (0); GS_TUNE_AUTO (default): where the work is large enough
                        (src/train/cv.c) */
    /* ---- gpusvm-grid (src/cli/grid.c) ---- */
    int grid_lanes;  /* GPUSVM_GRID_LANES=N (1..16): batches of cells solved at once in one process,
                        each on its own thread and queue (its answers are the same); GS_TUNE_AUTO
                        (default): on a GPU half the host's cores, 4 to 16 (fewer where the data's
                        copies would not fit), 1 on a CPU device (whose cores the solver already
                        uses); under MPI the batches a rank runs at once in a round (the ranks'
                        smallest, 1 when unset) */
    int grid_nice;   /* GPUSVM_GRID_NICE=K (0..19): gpusvm-grid's lane runs its batch b (the b-th
                        dearest) at nice min(19, b * K / 2), its subproblem threads too; 0 leaves
                        the priorities alone; GS_TUNE_AUTO (default): GS_GRID_NICE_DEFAULT */
    /* ---- device (src/device/ocl.c) ---- */
    const char *device;     /* GPUSVM_DEVICE: the device spec used when the caller gives none
                               (gs_ocl_open); NULL (default): the first GPU, else any device.
                               Borrowed: must outlive the gs_ocl_open call */
    int profile;            /* GPUSVM_PROFILE=0|1: 1 makes profiling queues (per-kernel device
                               times), 0 not; GS_TUNE_AUTO (default): not, and gpusvm-train's
                               --verbose turns it on */
    const char *kernel_dir; /* GPUSVM_KERNEL_DIR: read <dir>/<name>.cl instead of the embedded
                               kernels (developing); NULL (default): embedded. Copied by
                               gs_ocl_open */
    const char *kernel_cache; /* GPUSVM_KERNEL_CACHE=DIR, else $XDG_CACHE_HOME/gpusvm, else
                               $HOME/.cache/gpusvm (GPUSVM_KERNEL_CACHE=0 or --no-kernel-cache:
                               NULL): the folder where built program binaries are kept
                               (device/kcache.h); NULL (default, so the library writes nothing
                               unasked): build every program from source. Copied by gs_ocl_open */
    int kernel_cache_cpu;     /* 1 (GPUSVM_KERNEL_CACHE=DIR): CPU devices use kernel_cache too; 0
                               (default): GPUs and accelerators only. PoCL keeps a cache of its own,
                               and handing out a binary makes it compile every kernel's generic
                               work-group function first (+120 s for the solver on 2 cores), while
                               our binary spares only its front end (~3 s of a 35 s cold start) */
    int build_procs;        /* GPUSVM_BUILD_PROCS=N: a program made of parts (the solver's, abi.h
                               GS_SOLVER_PARTS) built part by part, up to N of them by helper
                               processes at once while this one builds another (N >= 1, on any
                               device, with or without the kernel cache: tests); 0 whole, in this
                               process; GS_TUNE_AUTO (default): in parts, by helpers, on a GPU
                               when build_exe and the kernel cache are set and the whole program
                               is not in the cache (device/ocl.h gs_ocl_build_parts) */
    const char *build_exe;  /* the program that serves as a build helper (the CLIs: their own,
                               /proc/self/exe, run as GS_OCL_HELPER_FLAG ...); NULL (default, so the
                               library starts no process unasked): none, parts built here.
                               Copied by gs_ocl_open */
    /* ---- prediction (src/predict/predictor.c), all from GS_PRED_LAYOUT, a comma-separated list ---- */
    int pred_blocks;        /* =rows: every SV block row-wise (GS_PRED_BLOCKS_ROWS); =dense: none
                               (GS_PRED_BLOCKS_DENSE); default GS_PRED_BLOCKS_AUTO: by sparsity */
    int pred_tile;          /* =tile: the tiled dense path on (1); =merge: off (0); default
                               GS_TUNE_AUTO: on for GPUs */
    int pred_hash;          /* =hash: row-wise blocks take the test rows' hash tables
                               (kernels/predict.cl pred_khash) where the model allows them (1);
                               =nohash: the merge (0); default GS_TUNE_AUTO: on for GPUs */
    int pred_codes;         /* =args: the host exact path reads every exp argument in double (0);
                               default 1: as 16-bit squared distances where they are small
                               integers (predictor.c's codes) */
    /* ---- the process (read by the CLIs only) ---- */
    int driver_env;  /* GPUSVM_DRIVER_ENV=0 gives 0: the CLIs leave NVIDIA's start-up variables
                        alone; 1 (default): they set them where the user has not (src/cli/env.h) */
    int fast_exit;   /* GPUSVM_FAST_EXIT=1 (or --fast-exit) gives 1: the CLIs end through
                        gs_exit_fast (src/cli/fastexit.h); 0 (default): a plain exit that
                        releases the device in the process */
    int exit_wait;   /* GPUSVM_EXIT_WAIT=1 gives 1: a plain exit even when fast_exit asks for
                        the other (the variable's meaning before fast_exit was opt-in); 0 default */
} gs_tuning;

/* Fills the defaults above (every knob "as without its variable"). */
void gs_tuning_init(gs_tuning *t);

#endif

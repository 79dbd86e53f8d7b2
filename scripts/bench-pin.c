/* bench-pin.c — what pinned host memory costs on an OpenCL GPU: MB megabytes allocated with
 * CL_MEM_ALLOC_HOST_PTR and mapped (as src/device/dev.c gs_dev_pinned_ensure does) in one buffer,
 * and in 2, 4, 8 buffers on as many threads (whether the driver pins in parallel), each time a read
 * of a device buffer into it, and the same read into plain malloc'd memory after touching its
 * pages; then host memory of our own (2 MB aligned, transparent huge pages asked for with madvise,
 * or not) touched and handed to the driver with CL_MEM_USE_HOST_PTR, and a read into it.
 * A measurement tool, not part of gpusvm; docs/performance.md cites it.
 *   cc -O1 -o bench-pin scripts/bench-pin.c -lOpenCL -lpthread && ./bench-pin 112 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
static double now(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+1e-9*t.tv_nsec; }
static cl_context ctx; static cl_device_id dev;
typedef struct { size_t bytes; double t; cl_mem m; void *h; cl_command_queue q; } job;
static void *pin(void *a){ job *j=a; cl_int e; double t0=now();
  j->m=clCreateBuffer(ctx,CL_MEM_READ_WRITE|CL_MEM_ALLOC_HOST_PTR,j->bytes,NULL,&e);
  j->h=clEnqueueMapBuffer(j->q,j->m,CL_TRUE,CL_MAP_READ|CL_MAP_WRITE,0,j->bytes,0,NULL,NULL,&e);
  j->t=now()-t0; return NULL; }
int main(int argc,char**argv){
  size_t mb = argc>1?(size_t)atol(argv[1]):112; int gpu_only=1;
  cl_platform_id ps[8]; cl_uint np; clGetPlatformIDs(8,ps,&np);
  for(cl_uint i=0;i<np;i++) if(clGetDeviceIDs(ps[i],gpu_only?CL_DEVICE_TYPE_GPU:CL_DEVICE_TYPE_ALL,1,&dev,NULL)==CL_SUCCESS) break;
  cl_int e; ctx=clCreateContext(NULL,1,&dev,NULL,NULL,&e);
  cl_command_queue qs[16]; for(int i=0;i<16;i++) qs[i]=clCreateCommandQueue(ctx,dev,0,&e);
  for(int rep=0;rep<2;rep++)
  for(int k=1;k<=8;k*=2){
    job j[8]; pthread_t th[8]; double t0=now();
    for(int i=0;i<k;i++){ j[i].bytes=(mb<<20)/k; j[i].q=qs[i]; pthread_create(&th[i],NULL,pin,&j[i]); }
    for(int i=0;i<k;i++) pthread_join(th[i],NULL);
    double t1=now();
    printf("%zu MB in %d buffer(s) on %d thread(s): %.4f s (each %.4f..)\n", mb, k, k, t1-t0, j[0].t);
    /* a read of the whole device buffer into the pinned memory */
    cl_mem d=clCreateBuffer(ctx,CL_MEM_READ_WRITE,mb<<20,NULL,&e); clFinish(qs[0]);
    double t2=now(); for(int i=0;i<k;i++) clEnqueueReadBuffer(qs[0],d,CL_FALSE,(size_t)i*j[i].bytes,j[i].bytes,j[i].h,0,NULL,NULL); clFinish(qs[0]);
    double t3=now(); void *pg=malloc(mb<<20); memset(pg,1,mb<<20); double t4=now();
    clEnqueueReadBuffer(qs[0],d,CL_TRUE,0,mb<<20,pg,0,NULL,NULL); double t5=now();
    printf("  read into pinned %.4f s; pageable: touch %.4f s, read %.4f s\n", t3-t2, t4-t3, t5-t4);
    free(pg); clReleaseMemObject(d);
    for(int i=0;i<k;i++){ clEnqueueUnmapMemObject(qs[i],j[i].m,j[i].h,0,NULL,NULL); clFinish(qs[i]); clReleaseMemObject(j[i].m);} 
  }
  cl_mem d=clCreateBuffer(ctx,CL_MEM_READ_WRITE,mb<<20,NULL,&e); clFinish(qs[0]);
  for(int rep=0;rep<2;rep++) for(int thp=1;thp>=0;thp--){
    size_t bytes=mb<<20; double t0=now();
    void *h=aligned_alloc(2u<<20,bytes); if(thp) madvise(h,bytes,MADV_HUGEPAGE); memset(h,0,bytes); double t1=now();
    cl_mem m=clCreateBuffer(ctx,CL_MEM_READ_WRITE|CL_MEM_USE_HOST_PTR,bytes,h,&e);
    void *mp=clEnqueueMapBuffer(qs[0],m,CL_TRUE,CL_MAP_READ|CL_MAP_WRITE,0,bytes,0,NULL,NULL,&e); double t2=now();
    clEnqueueReadBuffer(qs[0],d,CL_TRUE,0,bytes,h,0,NULL,NULL); double t3=now();
    clEnqueueReadBuffer(qs[0],d,CL_TRUE,0,bytes,h,0,NULL,NULL); double t4=now();
    printf("%zu MB own memory (huge pages asked: %d): touch %.4f s, USE_HOST_PTR + map %.4f s (same pointer: %d), read %.4f, again %.4f s\n",
           mb,thp,t1-t0,t2-t1,mp==h,t3-t2,t4-t3);
    clEnqueueUnmapMemObject(qs[0],m,mp,0,NULL,NULL); clFinish(qs[0]); clReleaseMemObject(m); free(h);
  }
  clReleaseMemObject(d);
  return 0; }

// udpcap: the ceiling of a userspace UDP transport on one path (sendmmsg + UDP GSO, recvmmsg + UDP GRO).
// Provenance: written for this project's performance investigation (issue 11, "../shared/tools/udpcap.c" on
// the project's machines) and copied here unchanged below this header so that bench/net.sh can build and run
// it beside our own datapath on the same test bed path. bench/net.sh builds it with `cc -O2`.
// Ceiling of a userspace UDP transport on this box: sendmmsg + UDP GSO, recvmmsg + UDP GRO.
// Build: gcc -O2 -o udpcap udpcap.c
// Receiver (port 9999, on the receiving host or namespace):  udpcap r RECEIVER_IP SEGMENT_BYTES GSO SECONDS
// Sender:                                                    udpcap s RECEIVER_IP SEGMENT_BYTES GSO SECONDS
//   SEGMENT_BYTES: one datagram's size (e.g. 8192 on an MTU 9000 link); GSO: 1 = UDP_SEGMENT on send and
//   UDP_GRO on receive, 0 = one datagram per mmsg entry (32 per call). Start the receiver first; it stops
//   after 1 s without data and prints the rate it received, which is the figure to compare.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <time.h>
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(int argc,char**argv){
  int mode=argv[1][0]=='s'; const char*ip=argv[2]; int seg=atoi(argv[3]); int gso=atoi(argv[4]); double dur=atof(argv[5]);
  int fd=socket(AF_INET,SOCK_DGRAM,0); int big=64<<20;
  setsockopt(fd,SOL_SOCKET,SO_SNDBUF,&big,4); setsockopt(fd,SOL_SOCKET,SO_RCVBUF,&big,4);
  setsockopt(fd,SOL_SOCKET,SO_SNDBUFFORCE,&big,4); setsockopt(fd,SOL_SOCKET,SO_RCVBUFFORCE,&big,4);
  struct sockaddr_in a={0}; a.sin_family=AF_INET; a.sin_port=htons(9999); inet_pton(AF_INET,ip,&a.sin_addr);
  enum{B=32}; static char buf[B][65536]; struct mmsghdr m[B]; struct iovec iov[B];
  if(mode){ // sender
    int n=gso? (65000/seg)*seg : seg; if(gso) setsockopt(fd,SOL_UDP,UDP_SEGMENT,&seg,4);
    for(int i=0;i<B;i++){iov[i].iov_base=buf[i];iov[i].iov_len=n;memset(&m[i],0,sizeof m[i]);m[i].msg_hdr.msg_iov=&iov[i];m[i].msg_hdr.msg_iovlen=1;m[i].msg_hdr.msg_name=&a;m[i].msg_hdr.msg_namelen=sizeof a;}
    double t0=now(); long bytes=0; while(now()-t0<dur){int r=sendmmsg(fd,m,B,0); if(r>0) bytes+=(long)r*n;}
    printf("sent %.2f Gb/s\n",bytes*8/1e9/dur);
  } else {
    bind(fd,(struct sockaddr*)&a,sizeof a); int one=1; if(gso) setsockopt(fd,SOL_UDP,UDP_GRO,&one,4);
    struct timeval tv={1,0}; setsockopt(fd,SOL_SOCKET,SO_RCVTIMEO,&tv,sizeof tv);
    for(int i=0;i<B;i++){iov[i].iov_base=buf[i];iov[i].iov_len=65536;memset(&m[i],0,sizeof m[i]);m[i].msg_hdr.msg_iov=&iov[i];m[i].msg_hdr.msg_iovlen=1;}
    long bytes=0; double t0=0,t1=0; for(;;){int r=recvmmsg(fd,m,B,0,NULL); if(r<=0) break; if(!t0) t0=now(); for(int i=0;i<r;i++) bytes+=m[i].msg_len; t1=now();}
    printf("recv %.2f Gb/s over %.2fs\n",bytes*8/1e9/(t1-t0),t1-t0);
  }
}

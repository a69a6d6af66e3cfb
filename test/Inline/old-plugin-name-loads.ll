; MLGOInliner.so, the plugin's name until mlgo 0.3, still loads for one
; release (docs/plugin.md): build/lib/MLGOInliner.so, where the build tree
; had it, and lib/mlgo/MLGOInliner.so beside the plugin (as the install and
; the .deb have it) are symlinks to mlgo-plugin.so, and opt loaded through
; either makes mlgo's decisions, remark for remark as with the new name.
;
; RUN: readlink %mlgo_obj/lib/MLGOInliner.so %mlgo_obj/lib/mlgo/MLGOInliner.so \
; RUN:   | FileCheck %s --check-prefix=LINK --match-full-lines
; LINK:      mlgo/mlgo-plugin.so
; LINK-NEXT: mlgo-plugin.so
;
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/mandatory.ll \
; RUN:   -o /dev/null -pass-remarks=mlgo-inline -pass-remarks-missed=mlgo-inline 2> %t.new
; RUN: FileCheck %s < %t.new
; RUN: opt -load-pass-plugin=%mlgo_obj/lib/MLGOInliner.so -passes='default<Oz>' \
; RUN:   %S/Inputs/mandatory.ll -o /dev/null -pass-remarks=mlgo-inline \
; RUN:   -pass-remarks-missed=mlgo-inline 2> %t.old
; RUN: diff %t.new %t.old
; RUN: opt -load-pass-plugin=%mlgo_obj/lib/mlgo/MLGOInliner.so -passes='default<Oz>' \
; RUN:   %S/Inputs/mandatory.ll -o /dev/null -pass-remarks=mlgo-inline \
; RUN:   -pass-remarks-missed=mlgo-inline 2> %t.installed
; RUN: diff %t.new %t.installed
;
; The embedded model decides the one call site it is asked about.
; CHECK: remark: <unknown>:0:0: {{.*}}'plain' into 'caller': decided by {{.*}}

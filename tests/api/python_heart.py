"""python_heart.py — LIBSVM's own Python bindings (Debian's python3-libsvm: ctypes over
libsvm.so.3) train and predict a data file: tests/cli/test_api.sh runs it with
LD_LIBRARY_PATH=<prefix>/lib/gpusvm, where libsvm.so.3 is gpusvm's library, and compares the model
with gpusvm-train's and the predictions with gpusvm-predict's.

    python3 python_heart.py DATA MODEL PREDICTIONS [svm_train options]

With -v n among the options only the bindings' "Cross Validation ..." line is printed.
"""
import sys

try:
    from svmutil import svm_read_problem, svm_train, svm_save_model, svm_predict  # Debian
except ImportError:
    from libsvm.svmutil import svm_read_problem, svm_train, svm_save_model, svm_predict  # pip's layout

data, model, predictions = sys.argv[1:4]
options = " ".join(sys.argv[4:] + ["-q"])
y, x = svm_read_problem(data)
m = svm_train(y, x, options)
if "-v" in sys.argv[4:]:
    sys.exit(0)  # cross validation: the bindings printed its result line; no model
svm_save_model(model, m)
labels, _, _ = svm_predict(y, x, m, "-q")
with open(predictions, "w") as f:
    for v in labels:
        f.write("%.17g\n" % v)
indices = m.get_sv_indices()
print("nr_sv %d sv_indices %s" % (m.get_nr_sv(), " ".join(str(i) for i in indices[:5])))

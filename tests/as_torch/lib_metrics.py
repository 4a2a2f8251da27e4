"""torchmetrics' common metrics under torch and webtorch-as-torch on the same predictions: each
metric updated over two batches (its states accumulate), then compute()."""
import torch
import torchmetrics


def _metrics():
    multiclass = dict(task="multiclass", num_classes=4)
    return {
        "accuracy": torchmetrics.Accuracy(**multiclass),
        "accuracy_micro": torchmetrics.Accuracy(**multiclass, average="micro"),
        "f1": torchmetrics.F1Score(**multiclass),
        "precision": torchmetrics.Precision(**multiclass, average="weighted"),
        "recall": torchmetrics.Recall(**multiclass, average="none"),
        "confusion": torchmetrics.ConfusionMatrix(**multiclass),
        "auroc": torchmetrics.AUROC(**multiclass),
        "binary_auroc": torchmetrics.AUROC(task="binary"),
        "binary_f1": torchmetrics.F1Score(task="binary"),
        "average_precision": torchmetrics.AveragePrecision(**multiclass),
        "mse": torchmetrics.MeanSquaredError(),
        "mae": torchmetrics.MeanAbsoluteError(),
        "r2": torchmetrics.R2Score(),
        "pearson": torchmetrics.PearsonCorrCoef(),
        "mean": torchmetrics.MeanMetric(),
    }


def _batches(ctx):
    def make():
        torch.manual_seed(0)
        return [dict(logits=torch.randn(16, 4), labels=torch.randint(0, 4, (16,)), scores=torch.rand(16),
                     binary=torch.randint(0, 2, (16,)), pred=torch.randn(16), target=torch.randn(16))
                for _ in range(2)]
    return [{k: v.to(ctx.device) for k, v in b.items()} for b in ctx.same_input(make, "batches")]


def run(ctx):
    metrics = _metrics()
    for batch in _batches(ctx):
        probs = batch["logits"].softmax(-1)
        for name, metric in metrics.items():
            metric.to(ctx.device)
            if name.startswith("binary"):
                metric.update(batch["scores"], batch["binary"])
            elif name in ("mse", "mae", "r2", "pearson"):
                metric.update(batch["pred"], batch["target"])
            elif name == "mean":
                metric.update(batch["pred"])
            else:
                metric.update(probs, batch["labels"])
    for name, metric in metrics.items():
        ctx.out(name, metric.compute())
    # the functional forms
    batch = _batches(ctx)[0]
    ctx.out("functional_accuracy", torchmetrics.functional.accuracy(batch["logits"], batch["labels"],
                                                                    task="multiclass", num_classes=4, top_k=2))
    ctx.out("functional_cosine", torchmetrics.functional.pairwise_cosine_similarity(batch["logits"]))

"""kornia under torch and webtorch-as-torch on the same images: filters, color conversions, geometry
(warps, homographies, resizing, pyramids) and augmentations with fixed parameters (the same draws
whatever the generator), with a gradient through a warp."""
import math

import torch
import kornia
import kornia.augmentation as K


def run(ctx):
    img = ctx.same_input(lambda: torch.rand(2, 3, 16, 16), "img").to(ctx.device)
    # filters
    ctx.out("gaussian_blur2d", kornia.filters.gaussian_blur2d(img, (5, 5), (1.5, 1.5)))
    ctx.out("box_blur", kornia.filters.box_blur(img, (3, 3)))
    ctx.out("median_blur", kornia.filters.median_blur(img, (3, 3)))
    ctx.out("sobel", kornia.filters.sobel(img))
    ctx.out("laplacian", kornia.filters.laplacian(img, 3))
    ctx.out("spatial_gradient", kornia.filters.spatial_gradient(img))
    ctx.out("unsharp_mask", kornia.filters.unsharp_mask(img, (3, 3), (1.0, 1.0)))
    ctx.out("canny", kornia.filters.canny(img)[1])
    # color
    ctx.out("rgb_to_grayscale", kornia.color.rgb_to_grayscale(img))
    hsv = kornia.color.rgb_to_hsv(img)
    ctx.out("rgb_to_hsv", hsv)
    ctx.out("hsv_to_rgb", kornia.color.hsv_to_rgb(hsv))
    ctx.out("rgb_to_lab", kornia.color.rgb_to_lab(img))
    ctx.out("rgb_to_yuv", kornia.color.rgb_to_yuv(img))
    # geometry
    angle = torch.tensor([30.0, -45.0], device=ctx.device)
    ctx.out("rotate", kornia.geometry.transform.rotate(img, angle))
    center = torch.tensor([[8.0, 8.0], [6.0, 9.0]], device=ctx.device)
    matrix = kornia.geometry.transform.get_rotation_matrix2d(center, angle, torch.ones(2, 2, device=ctx.device) * 1.2)
    ctx.out("rotation_matrix", matrix)
    src = torch.tensor([[[0.0, 0.0], [15.0, 0.0], [15.0, 15.0], [0.0, 15.0]]], device=ctx.device).repeat(2, 1, 1)
    dst = src + torch.tensor([[[1.0, 2.0], [-2.0, 1.0], [-1.0, -2.0], [2.0, -1.0]]], device=ctx.device)
    homography = kornia.geometry.transform.get_perspective_transform(src, dst)
    ctx.out("perspective_transform", homography)
    ctx.out("warp_perspective", kornia.geometry.transform.warp_perspective(img, homography, (16, 16)))
    ctx.out("resize", kornia.geometry.transform.resize(img, (10, 12), antialias=True))
    ctx.out("pyrdown", kornia.geometry.transform.pyrdown(img))
    ctx.out("hflip", kornia.geometry.transform.hflip(img))
    points = kornia.geometry.linalg.transform_points(homography, src)
    ctx.out("transform_points", points)
    # a gradient through warp_affine
    theta = torch.tensor(0.3, device=ctx.device, requires_grad=True)
    rot = torch.stack([torch.stack([torch.cos(theta), -torch.sin(theta), torch.tensor(1.0, device=ctx.device)]),
                       torch.stack([torch.sin(theta), torch.cos(theta), torch.tensor(-0.5, device=ctx.device)])])
    warped = kornia.geometry.transform.warp_affine(img, rot.expand(2, 2, 3), (16, 16), align_corners=True)
    (warped ** 2).mean().backward()
    ctx.out("warp_affine", warped)
    ctx.out("warp_affine_grad", theta.grad)
    # augmentations whose ranges leave one value: the same parameters under any generator
    augment = K.AugmentationSequential(
        K.RandomHorizontalFlip(p=1.0),
        K.RandomAffine(degrees=(20.0, 20.0), translate=None, scale=(1.1, 1.1), p=1.0),
        K.RandomBrightness(brightness=(1.2, 1.2), p=1.0),  # (ColorJiggle draws the order of its steps)
        K.RandomContrast(contrast=(0.8, 0.8), p=1.0),
        K.Normalize(mean=torch.tensor([0.5, 0.5, 0.5]), std=torch.tensor([0.25, 0.25, 0.25])),
        data_keys=["input", "keypoints"])
    keypoints = torch.tensor([[[2.0, 3.0], [10.0, 12.0]]], device=ctx.device).repeat(2, 1, 1)
    out, moved = augment(img, keypoints)
    ctx.out("augment", out)
    ctx.out("augment_keypoints", moved)
    ctx.out("center_crop", K.CenterCrop(10)(img))
    ctx.out("resize_aug", K.Resize((8, 8))(img))
    ctx.out("psnr", kornia.metrics.psnr(img, img.flip(-1), 1.0))
    ctx.out("ssim", kornia.metrics.ssim(img, img.flip(-1), 5))
    ctx.out("pi", math.isclose(float(kornia.constants.pi), math.pi, rel_tol=1e-6))

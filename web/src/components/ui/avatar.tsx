import { useState } from 'react';
import { cn } from '@/lib/cn';

/** The first two letters of the name, uppercased; '?' when there is no name. */
export function avatarInitials(name: string | null | undefined): string {
  const letters = Array.from(name?.trim() ?? '')
    .slice(0, 2)
    .join('');
  return letters ? letters.toUpperCase() : '?';
}

export type AvatarSize = 'xs' | 'sm' | 'md' | 'lg' | 'xl';

const sizeClasses: Record<AvatarSize, string> = {
  xs: 'size-5 text-[0.5rem]',
  sm: 'size-8 text-xs',
  md: 'size-10 text-sm',
  lg: 'size-16 text-xl',
  xl: 'size-24 text-3xl',
};

export interface AvatarProps {
  src?: string | null;
  /** The username: the image's alt text and the source of the fallback initials. */
  name?: string | null;
  size?: AvatarSize;
  className?: string;
}

/** The image, or the initials when there is no URL or the image fails to load. */
export function Avatar({ src, name, size = 'md', className }: AvatarProps) {
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const showImage = Boolean(src) && failedSrc !== src;
  return (
    <span
      className={cn(
        'relative inline-flex shrink-0 items-center justify-center overflow-hidden rounded-full bg-blurple font-semibold text-white select-none',
        sizeClasses[size],
        className,
      )}
    >
      {showImage ? (
        <img
          src={src ?? undefined}
          alt={name ?? ''}
          className="size-full object-cover"
          referrerPolicy="no-referrer"
          onError={() => setFailedSrc(src ?? null)}
        />
      ) : (
        <span role="img" aria-label={name ?? 'Unknown user'}>
          <span aria-hidden="true">{avatarInitials(name)}</span>
        </span>
      )}
    </span>
  );
}

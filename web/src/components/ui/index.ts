// The UI kit every screen uses. Import from '@/components/ui'; each file also imports on its own.
export * from './accordion';
export * from './alert';
export * from './avatar';
export * from './badge';
export * from './button';
export * from './card';
export * from './checkbox';
export * from './dialog';
export * from './icons';
export * from './input';
export * from './label';
export * from './page-shell';
export * from './select';
export * from './spinner';
export * from './textarea';
export * from './toast';
export * from './tooltip';
